import { cleanup, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import type { ClaudeCodeView } from "../../bindings/ClaudeCodeView";
import { fakeApi, renderWithStore } from "../../../test/render";
import { ClaudeCodeConnection } from "./ClaudeCodeConnection";

afterEach(cleanup);

function view(state: ClaudeCodeView["state"], problem: string | null = null): ClaudeCodeView {
  return { state, program: "/usr/bin/beckon", settings_file: "/home/ada/.claude/settings.json", problem };
}

function renderWith(start: ClaudeCodeView) {
  const calls: boolean[] = [];
  let now = start;
  const api = fakeApi({
    claudeCodeStatus: () => Promise.resolve(now),
    connectClaudeCode: (remove: boolean) => {
      calls.push(remove);
      now = view(remove ? "not_connected" : "connected");
      return Promise.resolve(now);
    },
  });
  renderWithStore(<ClaudeCodeConnection />, { api });
  return calls;
}

describe("Connect Claude Code", () => {
  it("connects, then offers to disconnect", async () => {
    const calls = renderWith(view("not_connected"));
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Connect Claude Code" }));
    expect(calls).toEqual([false]);
    expect(await screen.findByText(/^Connected:/)).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Disconnect" }));
    expect(calls).toEqual([false, true]);
    expect(await screen.findByText(/^Not connected:/)).toBeInTheDocument();
  });

  it("offers an update when out of date, and says why it cannot connect", async () => {
    renderWith(view("out_of_date"));
    expect(await screen.findByRole("button", { name: "Update Claude Code's settings" })).toBeInTheDocument();
    cleanup();
    renderWith(view("unavailable", "the beckon command was found neither beside Beckon nor on PATH"));
    expect(await screen.findByText(/found neither beside Beckon/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Connect/ })).toBeNull();
  });
});
