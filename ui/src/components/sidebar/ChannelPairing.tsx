import { useCallback, useEffect, useState } from "react";
import type { ChannelPairingCode } from "../../bindings/ChannelPairingCode";
import type { PairedChannel } from "../../bindings/PairedChannel";
import { errorBodyOf } from "../../api/errors";
import { useBackendHandles } from "../../state/store";

/** How often the panel looks again while a code waits to be sent. */
const LOOK_AGAIN_MS = 3_000;

const TITLES: Record<string, string> = { slack: "Slack", telegram: "Telegram" };

function title(channel: string): string {
  return TITLES[channel] ?? channel;
}

/** What to send, and where, for a code. */
function instruction(code: ChannelPairingCode): string {
  const until = new Date(code.expires_at_ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return code.channel === "slack"
    ? `Send pair ${code.code} to the Beckon app in a direct message in Slack before ${until}.`
    : `Send /start ${code.code} to the team's Beckon bot in Telegram before ${until}.`;
}

/**
 * The channels the person may pair their own account on (on a team server): whether they did,
 * a code when they ask for one (looked at again every few seconds until the bot hears it), and
 * unpairing. Once paired, questions addressed to them come to that account, and a press there is
 * their answer.
 */
export function ChannelPairing() {
  const { api } = useBackendHandles();
  const [channels, setChannels] = useState<PairedChannel[]>([]);
  const [code, setCode] = useState<ChannelPairingCode | null>(null);
  const [error, setError] = useState<string | null>(null);

  const look = useCallback(async () => {
    const found = await api.pairedChannels();
    setChannels(found);
    return found;
  }, [api]);

  useEffect(() => {
    let live = true;
    api.pairedChannels().then(
      (found) => live && setChannels(found),
      (failure: unknown) => live && setError(errorBodyOf(failure).message),
    );
    return () => {
      live = false;
    };
  }, [api]);

  useEffect(() => {
    if (!code) return;
    const timer = window.setInterval(() => {
      look().then(
        (found) => {
          const paired = found.some((channel) => channel.channel === code.channel && channel.account !== null);
          if (paired || Date.now() >= code.expires_at_ms) setCode(null);
        },
        () => undefined,
      );
    }, LOOK_AGAIN_MS);
    return () => window.clearInterval(timer);
  }, [code, look]);

  const run = (work: () => Promise<void>) => {
    setError(null);
    work().catch((failure: unknown) => setError(errorBodyOf(failure).message));
  };

  if (channels.length === 0 && !error) return null;
  return (
    <div className="person-channels" role="group" aria-label="Your channels">
      {channels.map((channel) => (
        <div key={channel.channel} className="person-channel">
          {channel.account ? (
            <>
              <p className="person-hint">
                {title(channel.channel)}: paired ({channel.account}). Questions for you come there too.
              </p>
              <button
                type="button"
                className="button button-quiet"
                onClick={() => run(async () => setChannels(await api.unpairChannel(channel.channel)))}
              >
                Unpair {title(channel.channel)}
              </button>
            </>
          ) : code?.channel === channel.channel ? (
            <p className="person-hint person-code">
              {instruction(code)} The code works once.
            </p>
          ) : (
            <button
              type="button"
              className="button button-quiet"
              onClick={() => run(async () => setCode(await api.pairChannel(channel.channel)))}
            >
              Pair your {title(channel.channel)} account
            </button>
          )}
        </div>
      ))}
      {error ? (
        <p className="person-hint" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
