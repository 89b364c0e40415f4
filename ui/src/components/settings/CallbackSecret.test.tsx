import { cleanup, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeApi, renderWithStore } from "../../../test/render";
import { CallbackSecret } from "./CallbackSecret";

let calls: string[] = [];
let secret = "first-secret-0123456789abcdef";

beforeEach(() => {
  calls = [];
  secret = "first-secret-0123456789abcdef";
});

afterEach(cleanup);

function renderSecret() {
  const api = fakeApi({
    callbackSecret: () => {
      calls.push("callback_secret");
      return Promise.resolve(secret);
    },
    rotateCallbackSecret: () => {
      calls.push("rotate_callback_secret");
      secret = "second-secret-fedcba9876543210";
      return Promise.resolve(secret);
    },
  });
  return renderWithStore(<CallbackSecret />, { api });
}

describe("the callback signing secret", () => {
  it("is read and shown only when asked, and hidden again", async () => {
    renderSecret();
    expect(calls).toEqual([]);
    expect(document.body).not.toHaveTextContent("first-secret");
    await userEvent.click(screen.getByRole("button", { name: "Show secret" }));
    expect(await screen.findByRole("textbox", { name: "Signing secret" })).toHaveValue("first-secret-0123456789abcdef");
    expect(calls).toEqual(["callback_secret"]);
    await userEvent.click(screen.getByRole("button", { name: "Hide" }));
    expect(screen.queryByRole("textbox", { name: "Signing secret" })).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Show secret" })).toBeInTheDocument();
  });

  it("copies the secret", async () => {
    const user = userEvent.setup();
    renderSecret();
    await user.click(screen.getByRole("button", { name: "Show secret" }));
    await screen.findByRole("textbox", { name: "Signing secret" });
    await user.click(screen.getByRole("button", { name: "Copy" }));
    expect(await navigator.clipboard.readText()).toBe("first-secret-0123456789abcdef");
    expect(screen.getByRole("status")).toHaveTextContent("Copied.");
  });

  it("rotates only after a confirmation, then shows the new secret", async () => {
    renderSecret();
    await userEvent.click(screen.getByRole("button", { name: "Rotate…" }));
    expect(calls).toEqual([]);
    const confirm = screen.getByRole("group", { name: "Rotate the signing secret" });
    expect(confirm).toHaveTextContent("refuse every callback until they are given the new one");
    await userEvent.click(screen.getByRole("button", { name: "Keep this one" }));
    expect(calls).toEqual([]);
    expect(screen.getByRole("button", { name: "Show secret" })).toBeInTheDocument();

    await userEvent.click(screen.getByRole("button", { name: "Rotate…" }));
    await userEvent.click(screen.getByRole("button", { name: "Rotate now" }));
    expect(await screen.findByRole("textbox", { name: "Signing secret" })).toHaveValue("second-secret-fedcba9876543210");
    expect(calls).toEqual(["rotate_callback_secret"]);
    expect(screen.getByRole("status")).toHaveTextContent("A new secret signs every callback from now on.");
  });
});
