import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { ChannelView } from "../../bindings/ChannelView";
import type { ErrorBody } from "../../bindings/ErrorBody";
import type { SettingsInput } from "../../bindings/SettingsInput";
import type { SettingsView as Settings } from "../../bindings/SettingsView";
import type { TelegramPairing } from "../../bindings/TelegramPairing";
import { fakeApi, renderWithStore } from "../../../test/render";
import { snapshot, stateFrom } from "../../../test/state";
import { SettingsView } from "./SettingsView";

const OFF: ChannelView = { enabled: false, bot_token_set: false, app_token_set: false, channel: null, person: null, api_base_url: null, after_minutes: 0, agents: [] };

function channels(slack: Partial<ChannelView> = {}, telegram: Partial<ChannelView> = {}): Settings {
  const base = snapshot().settings;
  return { ...base, slack: { ...OFF, ...slack }, telegram: { ...OFF, ...telegram } };
}

const SLACK_ON: Partial<ChannelView> = { enabled: true, bot_token_set: true, app_token_set: true, channel: "C0123456789", after_minutes: 10, agents: ["research", "deploy-bot"] };

function renderSettings(
  settings: Settings,
  {
    save = (input: SettingsInput) => Promise.resolve({ ...settings, slack: { ...settings.slack, after_minutes: input.slack?.after_minutes ?? 0 } }),
    pairing = (): Promise<TelegramPairing> => Promise.resolve({ chat: null, code: null, code_expires_at_ms: null, request: null }),
  }: { save?: (input: SettingsInput) => Promise<Settings>; pairing?: () => Promise<TelegramPairing> } = {},
) {
  const saved: SettingsInput[] = [];
  let pairingCalls = 0;
  const api = fakeApi({
    saveSettings: (input) => {
      saved.push(input);
      return save(input);
    },
    telegramPairing: () => {
      pairingCalls += 1;
      return pairing();
    },
    agentsStatus: () => new Promise(() => {}),
    tokens: () => new Promise(() => {}),
    startAtLogin: () => new Promise(() => {}),
  });
  renderWithStore(<SettingsView onShowGuide={() => undefined} />, { api, state: stateFrom(snapshot({ settings })) });
  return { saved, pairingCalls: () => pairingCalls };
}

const slackGroup = () => screen.getByRole("group", { name: "Slack" });
const telegramGroup = () => screen.getByRole("group", { name: "Telegram" });

describe("Settings › Channels", () => {
  it("shows what is saved, with tokens only as set or not", () => {
    renderSettings(channels(SLACK_ON));
    const slack = slackGroup();
    expect(within(slack).getByRole("switch", { name: "Enabled" })).toBeChecked();
    expect(within(slack).getByLabelText("App-level token")).toHaveValue("");
    expect(within(slack).getByLabelText("Bot token")).toHaveValue("");
    expect(within(slack).getAllByText("set", { exact: true })).toHaveLength(2);
    expect(within(slack).getByLabelText("Channel id")).toHaveValue("C0123456789");
    expect(within(slack).getByLabelText("Post only after (minutes unanswered)")).toHaveValue(10);
    expect(within(slack).getByLabelText("Only these agents")).toHaveValue("research, deploy-bot");
    const telegram = telegramGroup();
    expect(within(telegram).getByRole("switch", { name: "Enabled" })).not.toBeChecked();
    expect(within(telegram).getByText("not set", { exact: true })).toBeInTheDocument();
    expect(within(telegram).queryByLabelText("App-level token")).toBeNull();
    expect(screen.getByText(/Do not disturb pauses channel posts too/)).toBeInTheDocument();
  });

  it("sends no token to keep one, an empty one to clear it, and a typed one to replace it", async () => {
    const user = userEvent.setup();
    const { saved } = renderSettings(channels(SLACK_ON, { bot_token_set: true }));
    const slack = slackGroup();
    await user.clear(within(slack).getByLabelText("Channel id"));
    await user.type(within(slack).getByLabelText("Channel id"), "C0999");
    await user.type(within(slack).getByLabelText("Your member id"), " U0ADA ");
    await user.click(within(slack).getByRole("button", { name: "Clear the app-level token" }));
    await user.type(within(slack).getByLabelText("Bot token"), "xoxb-new-token");
    await user.clear(within(slack).getByLabelText("Only these agents"));
    await user.type(within(slack).getByLabelText("Only these agents"), " research ,, triage, research");
    await user.click(screen.getByRole("button", { name: "Save" }));
    await screen.findByText("Saved");

    const [input] = saved;
    expect(input?.slack).toEqual({
      enabled: true,
      app_token: "",
      bot_token: "xoxb-new-token",
      channel: "C0999",
      person: "U0ADA",
      api_base_url: null,
      after_minutes: 10,
      agents: ["research", "triage"],
    });
    expect(input?.telegram).toEqual({ enabled: false, channel: null, person: null, api_base_url: null, after_minutes: 0, agents: [] });
    expect(input?.telegram).not.toHaveProperty("bot_token");
  });

  it("asks for no pairing code until a bot token is saved", () => {
    const { pairingCalls } = renderSettings(channels());
    expect(telegramGroup()).toHaveTextContent("Save a bot token, then pair the chat");
    expect(pairingCalls()).toBe(0);
  });

  it("refuses minutes beyond a week beside the field, and sends nothing", async () => {
    const user = userEvent.setup();
    const { saved } = renderSettings(channels(SLACK_ON));
    const after = within(slackGroup()).getByLabelText("Post only after (minutes unanswered)");
    await user.clear(after);
    await user.type(after, "20000");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(after).toHaveAttribute("aria-invalid", "true");
    expect(after).toHaveAccessibleDescription(expect.stringContaining(`Slack's "post only after" must be a whole number of minutes from 0 to 10080`));
    expect(saved).toEqual([]);
  });

  it("shows the backend's refusal beside the field it names", async () => {
    const user = userEvent.setup();
    const refusal: ErrorBody = {
      kind: "invalid_input",
      message: "Slack's channel must be a channel or member id such as C0123456789 (2 to 20 capital letters and digits), not \"#general\".",
      field: "slack.channel",
      problems: [{ path: "slack.channel", message: "Slack's channel must be a channel or member id such as C0123456789 (2 to 20 capital letters and digits), not \"#general\"." }],
    };
    renderSettings(channels(SLACK_ON), { save: () => Promise.reject(refusal) });
    const channel = within(slackGroup()).getByLabelText("Channel id");
    await user.clear(channel);
    await user.type(channel, "#general");
    await user.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(channel).toHaveAttribute("aria-invalid", "true"));
    expect(channel).toHaveAccessibleDescription(expect.stringContaining('not "#general"'));
    expect(screen.getByRole("alert")).toHaveTextContent("Slack's channel must be a channel or member id");
    expect(within(telegramGroup()).queryByText(/must be/)).toBeNull();
  });

  it("opens the advanced API address when one is set, and sends a new one without tokens", async () => {
    const user = userEvent.setup();
    const { saved } = renderSettings(channels({}, { bot_token_set: true, api_base_url: "http://127.0.0.1:8081" }));
    const address = within(telegramGroup()).getByLabelText("API address");
    expect(address).toBeVisible();
    expect(address).toHaveValue("http://127.0.0.1:8081");
    await user.clear(address);
    await user.type(address, "http://127.0.0.1:9090");
    await user.click(screen.getByRole("button", { name: "Save" }));
    await screen.findByText("Saved");
    expect(saved[0]?.telegram).toEqual({ enabled: false, channel: null, person: null, api_base_url: "http://127.0.0.1:9090", after_minutes: 0, agents: [] });
  });
});
