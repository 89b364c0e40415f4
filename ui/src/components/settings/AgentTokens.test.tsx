import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import type { TokenView } from "../../bindings/TokenView";
import { FixedNow } from "../../hooks/now";
import { fakeApi, renderWithStore } from "../../../test/render";
import { AgentTokens } from "./AgentTokens";

afterEach(cleanup);

const NOW = 1_800_000_000_000;

function token(name: string, lastUsedMinutesAgo: number | null): TokenView {
  return {
    name,
    kind: "ask_only",
    created_at_ms: NOW - 86_400_000,
    last_used_at_ms: lastUsedMinutesAgo === null ? null : NOW - lastUsedMinutesAgo * 60_000,
    owner: null,
  };
}

function renderWith(start: TokenView[]) {
  const calls: string[] = [];
  const api = fakeApi({
    tokens: () => Promise.resolve(start),
    createToken: (name: string) => {
      calls.push(`create ${name}`);
      if (name === "taken") return Promise.reject({ kind: "invalid_input", message: "a live token is already named taken" });
      return Promise.resolve({ token: token(name, null), secret: "bkn_ask_s3cret" });
    },
    revokeToken: (name: string) => {
      calls.push(`revoke ${name}`);
      return Promise.resolve(token(name, null));
    },
  });
  renderWithStore(
    <FixedNow at={NOW}>
      <AgentTokens />
    </FixedNow>,
    { api },
  );
  return calls;
}

describe("Settings › Other machines", () => {
  it("lists the tokens with their last use, and revokes one", async () => {
    const calls = renderWith([token("devbox", 5), token("ci", null)]);
    const devbox = (await screen.findByText("devbox")).closest("li")!;
    expect(devbox).toHaveTextContent("used 5 min ago");
    expect(screen.getByText("ci").closest("li")!).toHaveTextContent("never used");
    await userEvent.click(within(devbox).getByRole("button", { name: "Revoke devbox" }));
    expect(calls).toEqual(["revoke devbox"]);
    expect(screen.queryByText("devbox")).toBeNull();
    expect(screen.getByText("ci")).toBeInTheDocument();
  });

  it("makes a token and shows its secret once, and says why a name is refused", async () => {
    const calls = renderWith([]);
    expect(await screen.findByText("No tokens yet.")).toBeInTheDocument();
    const name = screen.getByLabelText("Name of a new token");
    await userEvent.type(name, "devbox{Enter}");
    expect(calls).toEqual(["create devbox"]);
    expect(await screen.findByLabelText("Secret of devbox")).toHaveValue("bkn_ask_s3cret");
    expect(screen.getByText("devbox", { selector: "li strong" })).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Done" }));
    expect(screen.queryByLabelText("Secret of devbox")).toBeNull();
    await userEvent.type(name, "taken");
    await userEvent.click(screen.getByRole("button", { name: "Make an ask-only token" }));
    expect(await screen.findByText("a live token is already named taken")).toBeInTheDocument();
  });
});
