import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentView } from "../../bindings/AgentView";
import { fakeApi, renderWithStore } from "../../../test/render";
import { AgentConnections } from "./AgentConnections";

afterEach(cleanup);

function agent(name: string, title: string, state: AgentView["state"], extra: Partial<AgentView> = {}): AgentView {
  return {
    name,
    title,
    state,
    installed: state !== "not_installed",
    answers_approvals: name !== "gemini",
    limits: null,
    config_file: `/home/ada/.${name}/settings.json`,
    program: "/usr/bin/beckon",
    next_step: `${title}: restart it to pick this up.`,
    problem: null,
    ...extra,
  };
}

function renderWith(start: AgentView[], installedOnly = false) {
  const calls: [string, boolean][] = [];
  let now = start;
  const api = fakeApi({
    agentsStatus: () => Promise.resolve(now),
    connectAgent: (name: string, remove: boolean) => {
      calls.push([name, remove]);
      now = now.map((one) => (one.name === name ? { ...one, state: remove ? "not_connected" : "connected" } : one));
      return Promise.resolve(now.find((one) => one.name === name)!);
    },
  });
  renderWithStore(<AgentConnections installedOnly={installedOnly} />, { api });
  return calls;
}

const GEMINI_LIMITS = "Gemini CLI lets no outside program approve a tool call: its permission prompts arrive in Beckon as notices naming the command.";

describe("Settings › Agents", () => {
  it("lists every agent with its state, and connects and disconnects one without touching the others", async () => {
    const calls = renderWith([
      agent("claude-code", "Claude Code", "connected"),
      agent("codex", "Codex CLI", "not_connected"),
      agent("copilot", "Copilot CLI", "out_of_date"),
      agent("opencode", "OpenCode", "not_installed"),
      agent("gemini", "Gemini CLI", "not_connected", { limits: GEMINI_LIMITS }),
    ]);
    const user = userEvent.setup();
    const codex = (await screen.findByText("Codex CLI")).closest("li")!;
    expect(within(codex).getByRole("status")).toHaveTextContent("Not connected");
    await user.click(within(codex).getByRole("button", { name: "Connect Codex CLI" }));
    expect(calls).toEqual([["codex", false]]);
    expect(await within(codex).findByText("Connected")).toBeInTheDocument();
    expect(within(codex).getByText("Codex CLI: restart it to pick this up.")).toBeInTheDocument();
    expect(screen.getByText("Copilot CLI").closest("li")!).toHaveTextContent(/Out of date/);
    expect(screen.getByRole("button", { name: "Update Copilot CLI" })).toBeInTheDocument();
    expect(screen.getByText("OpenCode").closest("li")!).toHaveTextContent("Not installed");
    const gemini = screen.getByText("Gemini CLI").closest("li")!;
    expect(within(gemini).getByText(GEMINI_LIMITS)).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Disconnect Claude Code" }));
    expect(calls).toEqual([
      ["codex", false],
      ["claude-code", true],
    ]);
    expect(await within(screen.getByText("Claude Code").closest("li")!).findByText("Not connected")).toBeInTheDocument();
    expect(within(codex).getByText("Connected")).toBeInTheDocument();
  });

  it("says why an agent cannot be connected from here", async () => {
    renderWith([agent("codex", "Codex CLI", "unavailable", { problem: "config.toml is not valid TOML" })]);
    expect(await screen.findByText("config.toml is not valid TOML")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Connect/ })).toBeNull();
  });

  it("in the guide lists only the agents found on this computer, and says when there are none", async () => {
    renderWith([agent("claude-code", "Claude Code", "not_connected"), agent("codex", "Codex CLI", "not_installed")], true);
    expect(await screen.findByText("Claude Code")).toBeInTheDocument();
    expect(screen.queryByText("Codex CLI")).toBeNull();
    cleanup();
    renderWith([agent("codex", "Codex CLI", "not_installed")], true);
    expect(await screen.findByText(/No agent was found on this computer/)).toBeInTheDocument();
  });
});
