import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { TelegramPairing } from "../../bindings/TelegramPairing";
import { fakeApi, renderWithStore } from "../../../test/render";
import { TelegramPairingBox } from "./TelegramPairing";

const NONE: TelegramPairing = { chat: null, code: null, code_expires_at_ms: null, request: null };
const IN_TEN_MINUTES = Date.now() + 10 * 60_000;

/** The box against a backend holding `pairing`, recording the commands it is sent. */
function renderBox(start: TelegramPairing) {
  let pairing = start;
  const calls: string[] = [];
  const api = fakeApi({
    telegramPairing: () => {
      calls.push("telegram_pairing");
      return Promise.resolve(pairing);
    },
    newTelegramPairingCode: () => {
      calls.push("new_telegram_pairing_code");
      pairing = { ...pairing, code: "7QK2M9XD", code_expires_at_ms: IN_TEN_MINUTES, request: null };
      return Promise.resolve(pairing);
    },
    confirmTelegramChat: (chat) => {
      calls.push(`confirm_telegram_chat ${chat}`);
      pairing = { ...pairing, chat, request: null };
      return Promise.resolve(pairing);
    },
    refuseTelegramChat: (chat) => {
      calls.push(`refuse_telegram_chat ${chat}`);
      pairing = { ...pairing, request: null };
      return Promise.resolve(pairing);
    },
  });
  renderWithStore(<TelegramPairingBox tokenSet enabled />, { api });
  return {
    calls,
    pairChat: (chat: string) => {
      pairing = { ...pairing, chat, code: null, code_expires_at_ms: null };
    },
  };
}

const box = () => screen.findByRole("group", { name: "Telegram pairing" });

describe("Telegram pairing in Settings", () => {
  it("makes no code until the person asks to pair a chat, then shows /start <code> and the chat once paired", async () => {
    const user = userEvent.setup();
    const { calls, pairChat } = renderBox(NONE);
    const pairing = await box();
    expect(pairing).toHaveTextContent("No chat is paired yet.");
    expect(pairing).not.toHaveTextContent("/start");
    expect(calls).toEqual(["telegram_pairing"]);

    await user.click(within(pairing).getByRole("button", { name: "Pair a chat" }));
    expect(await within(pairing).findByText("/start 7QK2M9XD")).toBeInTheDocument();
    expect(pairing).toHaveTextContent("Send /start 7QK2M9XD to your bot before");
    expect(pairing).toHaveTextContent("The code works once, for ten minutes.");
    expect(calls).toEqual(["telegram_pairing", "new_telegram_pairing_code"]);

    await user.click(within(pairing).getByRole("button", { name: "Copy" }));
    expect(await navigator.clipboard.readText()).toBe("/start 7QK2M9XD");
    expect(within(pairing).getByRole("status")).toHaveTextContent("Copied.");

    pairChat("123456789");
    await user.click(within(pairing).getByRole("button", { name: "Refresh" }));
    expect(await within(pairing).findByText("123456789")).toBeInTheDocument();
    expect(pairing).toHaveTextContent("Paired with chat 123456789.");
    expect(pairing).not.toHaveTextContent("/start");
    expect(within(pairing).getByRole("button", { name: "Pair another chat" })).toBeInTheDocument();
  });

  it("replaces the paired chat only when the person confirms the chat that asks", async () => {
    const user = userEvent.setup();
    const { calls } = renderBox({ ...NONE, chat: "4242", request: { chat: "5151", name: "@bob" } });
    const pairing = await box();
    const ask = within(pairing).getByRole("group", { name: "Replace the paired chat" });
    expect(ask).toHaveTextContent("Chat 5151 (@bob) wants to replace chat 4242.");
    await user.click(within(ask).getByRole("button", { name: "Confirm" }));
    expect(await within(pairing).findByText("5151")).toBeInTheDocument();
    expect(pairing).toHaveTextContent("Paired with chat 5151.");
    expect(within(pairing).queryByRole("group", { name: "Replace the paired chat" })).toBeNull();
    expect(calls).toEqual(["telegram_pairing", "confirm_telegram_chat 5151"]);
  });

  it("keeps the paired chat when the person refuses", async () => {
    const user = userEvent.setup();
    const { calls } = renderBox({ ...NONE, chat: "4242", request: { chat: "5151", name: null } });
    const pairing = await box();
    await user.click(within(pairing).getByRole("button", { name: "Refuse" }));
    await within(pairing).findByText("4242");
    expect(within(pairing).queryByRole("group", { name: "Replace the paired chat" })).toBeNull();
    expect(pairing).toHaveTextContent("Paired with chat 4242.");
    expect(calls).toEqual(["telegram_pairing", "refuse_telegram_chat 5151"]);
  });
});
