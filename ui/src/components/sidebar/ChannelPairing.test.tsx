import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { PairedChannel } from "../../bindings/PairedChannel";
import { fakeApi, renderWithStore } from "../../../test/render";
import { ChannelPairing } from "./ChannelPairing";

const IN_TEN_MINUTES = Date.now() + 10 * 60_000;

/** The panel against a team server that pairs on `start`'s channels, recording its calls. */
function renderPanel(start: PairedChannel[]) {
  let channels = start;
  const calls: string[] = [];
  const api = fakeApi({
    pairedChannels: () => {
      calls.push("paired_channels");
      return Promise.resolve(channels);
    },
    pairChannel: (channel) => {
      calls.push(`pair_channel ${channel}`);
      return Promise.resolve({ channel, code: "K7QMXT3A", expires_at_ms: IN_TEN_MINUTES });
    },
    unpairChannel: (channel) => {
      calls.push(`unpair_channel ${channel}`);
      channels = channels.map((c) => (c.channel === channel ? { ...c, account: null, paired_at_ms: null } : c));
      return Promise.resolve(channels);
    },
  });
  renderWithStore(<ChannelPairing />, { api });
  return {
    calls,
    pair: (account: string) => {
      channels = channels.map((c) => ({ ...c, account, paired_at_ms: Date.now() }));
    },
  };
}

const SLACK: PairedChannel = { channel: "slack", account: null, paired_at_ms: null };

describe("pairing one's own channel account on a team server", () => {
  it("makes a code only when asked, says what to send, and shows the account once the bot heard it", async () => {
    const user = userEvent.setup();
    const { calls, pair } = renderPanel([SLACK]);
    const panel = await screen.findByRole("group", { name: "Your channels" });
    expect(panel).not.toHaveTextContent("K7QMXT3A");
    await user.click(within(panel).getByRole("button", { name: "Pair your Slack account" }));
    expect(await within(panel).findByText(/Send pair K7QMXT3A to the Beckon app in a direct message in Slack/)).toBeInTheDocument();
    expect(calls).toEqual(["paired_channels", "pair_channel slack"]);

    pair("U0ADA");
    expect(await within(panel).findByText(/Slack: paired \(U0ADA\)/, {}, { timeout: 5_000 })).toBeInTheDocument();
    expect(panel).not.toHaveTextContent("K7QMXT3A");

    await user.click(within(panel).getByRole("button", { name: "Unpair Slack" }));
    expect(await within(panel).findByRole("button", { name: "Pair your Slack account" })).toBeInTheDocument();
    expect(calls.at(-1)).toBe("unpair_channel slack");
  });

  it("shows nothing where the server pairs no channel", async () => {
    const { calls } = renderPanel([]);
    await screen.findByText((_, element) => element === document.body);
    await Promise.resolve();
    expect(calls).toEqual(["paired_channels"]);
    expect(screen.queryByRole("group", { name: "Your channels" })).toBeNull();
  });
});
