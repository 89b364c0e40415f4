import { act, cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Commands } from "../../api/commands";
import type { NotificationTest } from "../../bindings/NotificationTest";
import { fakeApi, renderWithStore } from "../../../test/render";
import { snapshot, stateFrom } from "../../../test/state";
import { GuideView } from "./GuideView";

const POET = { name: "poet", description: "Writes a poem", provider: "scripted" as const, questions: true, builtin: true };

function newBeckon(dismissed = false) {
  const data = snapshot({ agents: [POET] });
  return stateFrom({ ...data, settings: { ...data.settings, guide_dismissed: dismissed } });
}

function renderGuide(overrides: Partial<Commands> = {}, dismissed = false) {
  const calls: string[] = [];
  const onDone = vi.fn();
  const onStarted = vi.fn();
  const api = fakeApi({
    beckonCommand: () => Promise.resolve("/opt/beckon/bin/beckon"),
    agentsStatus: () =>
      Promise.resolve([
        { name: "claude-code", title: "Claude Code", state: "not_connected", installed: true, answers_approvals: true, limits: null, config_file: "/home/ada/.claude/settings.json", program: "/opt/beckon/bin/beckon", next_step: null, problem: null },
        { name: "codex", title: "Codex CLI", state: "not_installed", installed: false, answers_approvals: true, limits: null, config_file: "/home/ada/.codex/config.toml", program: "/opt/beckon/bin/beckon", next_step: null, problem: null },
      ]),
    startAtLogin: () => Promise.resolve(false),
    dismissGuide: () => {
      calls.push("dismissGuide");
      return Promise.resolve({ ...newBeckon().settings!, guide_dismissed: true });
    },
    ...overrides,
  });
  renderWithStore(<GuideView onDone={onDone} onStarted={onStarted} />, { api, state: newBeckon(dismissed) });
  return { calls, onDone, onStarted };
}

beforeEach(() => {
  // The event bridge, for the test notification's press.
  mockIPC(() => null, { shouldMockEvents: true });
});

afterEach(() => {
  cleanup();
  clearMocks();
});

describe("the getting-started guide", () => {
  it("says what Beckon is and offers to connect the agents it finds installed", async () => {
    renderGuide();
    expect(screen.getByRole("heading", { name: "Welcome to Beckon" })).toBeInTheDocument();
    expect(screen.getByText(/Beckon is an inbox where AI agents ask you questions/)).toBeInTheDocument();
    const agents = screen.getByRole("group", { name: "Connect your agents" });
    expect(await within(agents).findByRole("button", { name: "Connect Claude Code" })).toBeInTheDocument();
    expect(within(agents).queryByText("Codex CLI")).toBeNull();
  });

  it("gives the MCP configuration and a beckon ask line with the real path, each to copy", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    renderGuide();
    const config = await screen.findByLabelText("MCP configuration");
    expect(JSON.parse(config.textContent ?? "")).toEqual({ mcpServers: { beckon: { command: "/opt/beckon/bin/beckon", args: ["mcp"] } } });
    expect(screen.getByLabelText("beckon ask command")).toHaveTextContent('/opt/beckon/bin/beckon ask "Deploy?" -o Yes -o No');
    await userEvent.click(screen.getByRole("button", { name: "Copy beckon ask command" }));
    expect(writeText).toHaveBeenCalledWith('/opt/beckon/bin/beckon ask "Deploy?" -o Yes -o No');
    expect(screen.getByRole("button", { name: "Copy beckon ask command" })).toHaveTextContent("Copied");
    await userEvent.click(screen.getByRole("button", { name: "Copy MCP configuration" }));
    expect(writeText).toHaveBeenLastCalledWith(config.textContent);
  });

  it("falls back to plain beckon when the command is not found, and says so", async () => {
    renderGuide({ beckonCommand: () => Promise.resolve(null) });
    expect(await screen.findByLabelText("beckon ask command")).toHaveTextContent(/^beckon ask "Deploy\?" -o Yes -o No$/);
    expect(screen.getByText(/found neither beside Beckon nor on PATH/)).toBeInTheDocument();
  });

  it("sends a test notification, says the service showed it, and that its press came back", async () => {
    let sent = 0;
    renderGuide({
      sendTestNotification: () => {
        sent += 1;
        return Promise.resolve({ delivered: true, problem: null, do_not_disturb: true });
      },
    });
    await userEvent.click(screen.getByRole("button", { name: "Send a test notification" }));
    expect(sent).toBe(1);
    expect(await screen.findByText(/The notification service showed it/)).toBeInTheDocument();
    expect(screen.getByText(/Do not disturb is on/)).toBeInTheDocument();
    expect(screen.queryByText(/Your press reached Beckon/)).not.toBeInTheDocument();
    await act(() => emit("test_notification_pressed", "test:pressed"));
    expect(await screen.findByText(/Your press reached Beckon/)).toBeInTheDocument();
  });

  it("says why a test notification could not be shown", async () => {
    const failed: NotificationTest = { delivered: false, problem: "org.freedesktop.DBus.Error.ServiceUnknown", do_not_disturb: false };
    renderGuide({ sendTestNotification: () => Promise.resolve(failed) });
    await userEvent.click(screen.getByRole("button", { name: "Send a test notification" }));
    expect(await screen.findByText(/did not take it: org.freedesktop.DBus.Error.ServiceUnknown/)).toBeInTheDocument();
  });

  it("starts a chat with the demo agent and opens it", async () => {
    const started: [string, string][] = [];
    const { onStarted } = renderGuide({
      startSession: (agent, message) => {
        started.push([agent, message]);
        return Promise.resolve("s-poem");
      },
    });
    await userEvent.click(screen.getByRole("button", { name: "Try the demo agent" }));
    expect(started).toEqual([["poet", "Write a poem about the sea"]]);
    expect(onStarted).toHaveBeenCalledWith("s-poem");
  });

  it("offers starting at login", async () => {
    const turned: boolean[] = [];
    renderGuide({
      setStartAtLogin: (on) => {
        turned.push(on);
        return Promise.resolve(on);
      },
    });
    const toggle = await screen.findByRole("switch", { name: "Start Beckon when I log in" });
    await vi.waitFor(() => expect(toggle).toBeEnabled());
    await userEvent.click(toggle);
    expect(turned).toEqual([true]);
  });

  it("is put away for good with Got it, and only once", async () => {
    const { calls, onDone } = renderGuide();
    const [top] = screen.getAllByRole("button", { name: "Got it" });
    await userEvent.click(top!);
    expect(calls).toEqual(["dismissGuide"]);
    expect(onDone).toHaveBeenCalledTimes(1);
    cleanup();
    const again = renderGuide({}, true);
    await userEvent.click(screen.getAllByRole("button", { name: "Got it" })[0]!);
    expect(again.calls, "opened again from Settings: already put away").toEqual([]);
    expect(again.onDone).toHaveBeenCalledTimes(1);
  });
});
