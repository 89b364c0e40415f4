import { useEffect, useId, useState } from "react";
import { errorBodyOf } from "../../api/errors";
import type { NewToken } from "../../bindings/NewToken";
import type { TokenView } from "../../bindings/TokenView";
import { absoluteTime, agoLabel } from "../../format/duration";
import { useNow } from "../../hooks/now";
import { useBackendHandles } from "../../state/store";
import { Spinner } from "../common/Spinner";

/**
 * Settings › Other machines: the ask-only tokens agents on other machines reach this Beckon
 * with (through a tunnel such as `ssh -R`). A token may ask, read and withdraw its own
 * questions, never answer or allow anything. Its secret is shown once, when made; revoking
 * refuses it at once.
 */
export function AgentTokens() {
  const { api } = useBackendHandles();
  const nowMs = useNow();
  const [tokens, setTokens] = useState<TokenView[] | null>(null);
  const [made, setMade] = useState<NewToken | null>(null);
  const [name, setName] = useState("");
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const id = useId();

  useEffect(() => {
    let live = true;
    api.tokens().then(
      (found) => live && setTokens(found),
      (failure: unknown) => live && setError(errorBodyOf(failure).message),
    );
    return () => {
      live = false;
    };
  }, [api]);

  const create = async () => {
    if (busy !== null || name.trim() === "") return;
    setBusy("create");
    setError(null);
    try {
      const token = await api.createToken(name);
      setMade(token);
      setName("");
      setTokens((now) => [token.token, ...(now ?? [])]);
    } catch (failure) {
      setError(errorBodyOf(failure).message);
    }
    setBusy(null);
  };

  const revoke = async (revoked: string) => {
    setBusy(revoked);
    setError(null);
    try {
      await api.revokeToken(revoked);
      setTokens((now) => (now ?? []).filter((token) => token.name !== revoked));
      if (made?.token.name === revoked) setMade(null);
    } catch (failure) {
      setError(errorBodyOf(failure).message);
    }
    setBusy(null);
  };

  return (
    <fieldset className="settings-group tokens" aria-labelledby={`${id}-title`}>
      <legend id={`${id}-title`}>Other machines</legend>
      <p className="qhint">
        Agents on another machine (a dev box, a CI runner) reach this Beckon through a tunnel, with an ask-only token: it may ask you and read or withdraw its own questions,
        never answer or allow anything. <code>beckon remote ssh HOST</code> prints the lines that set one up over SSH.
      </p>
      {made ? (
        <div className="token-made" role="status">
          <p>
            Token <strong>{made.token.name}</strong> made. Copy its secret now: Beckon keeps only its hash and cannot show it again.
          </p>
          <input className="input input-mono" type="text" readOnly value={made.secret} aria-label={`Secret of ${made.token.name}`} spellCheck={false} />
          <p className="qhint">
            On the other machine: <code>export BECKON_URL=http://127.0.0.1:7393 BECKON_TOKEN=…</code>, or put both in <code>remote.json</code> in Beckon&apos;s data folder there.
          </p>
          <button type="button" className="link-button" onClick={() => setMade(null)}>
            Done
          </button>
        </div>
      ) : null}
      {tokens === null && error === null ? <Spinner label="Reading the tokens" /> : null}
      {tokens !== null && tokens.length === 0 ? <p className="qhint">No tokens yet.</p> : null}
      {tokens !== null && tokens.length > 0 ? (
        <ul className="token-list">
          {tokens.map((token) => (
            <li key={token.name} className="token-row" data-token={token.name}>
              <strong>{token.name}</strong>
              <span className="qhint">
                ask-only · made <span title={absoluteTime(token.created_at_ms)}>{agoLabel(token.created_at_ms, nowMs)}</span> ·{" "}
                {token.last_used_at_ms === null ? "never used" : <span title={absoluteTime(token.last_used_at_ms)}>used {agoLabel(token.last_used_at_ms, nowMs)}</span>}
              </span>
              <button type="button" className="button button-small button-quiet" onClick={() => void revoke(token.name)} disabled={busy !== null} aria-label={`Revoke ${token.name}`}>
                {busy === token.name ? <Spinner /> : null}
                Revoke
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {/* Inside Settings' own form: Enter makes the token instead of saving the settings. */}
      <div className="key-row">
        <label htmlFor={`${id}-name`} className="visually-hidden">
          Name of a new token
        </label>
        <input
          id={`${id}-name`}
          className="input"
          type="text"
          placeholder="devbox"
          value={name}
          onChange={(event) => setName(event.target.value)}
          onKeyDown={(event) => {
            if (event.key !== "Enter") return;
            event.preventDefault();
            void create();
          }}
          maxLength={40}
        />
        <button type="button" className="button button-small" onClick={() => void create()} disabled={busy !== null || name.trim() === ""}>
          {busy === "create" ? <Spinner /> : null}
          Make an ask-only token
        </button>
      </div>
      {error ? <p className="form-error">{error}</p> : null}
    </fieldset>
  );
}
