import { useEffect, useState } from "react";
import type { SessionId } from "../../bindings/SessionId";
import { useActions, useAppSelector, useBackendHandles } from "../../state/store";
import { Icon } from "../common/Icon";
import { Spinner } from "../common/Spinner";
import { AgentConnections } from "../settings/AgentConnections";
import { StartAtLogin } from "../settings/StartAtLogin";
import { CopyBlock } from "./CopyBlock";
import { askExample, DEMO_AGENT, DEMO_MESSAGE, mcpConfig } from "./firstRun";
import { TestNotification } from "./TestNotification";

/** Connecting other MCP clients and scripts: the MCP configuration and a `beckon ask` line, with the real path of `beckon`. */
function OtherAgents() {
  const { api } = useBackendHandles();
  // undefined while looking, null when the command was not found.
  const [program, setProgram] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    api.beckonCommand().then(
      (found) => live && setProgram(found),
      () => live && setProgram(null),
    );
    return () => {
      live = false;
    };
  }, [api]);
  if (program === undefined) return <Spinner label="Looking for the beckon command" />;
  const command = program ?? "beckon";
  return (
    <>
      <p>MCP clients (Cursor, Claude Desktop, Windsurf, …) take Beckon as an MCP server; add this to their configuration:</p>
      <CopyBlock label="MCP configuration" text={mcpConfig(command)} />
      <p>Scripts and terminals ask with the beckon command, and get the answer on standard output:</p>
      <CopyBlock label="beckon ask command" text={askExample(command)} />
      {program === null ? (
        <p className="qhint">
          The beckon command was found neither beside Beckon nor on PATH: install Beckon&apos;s package, or build it with <code>cargo build -p beckon-cli</code>, and
          put its full path above.
        </p>
      ) : null}
    </>
  );
}

/** "Try the demo agent": a chat with the built-in offline poet, as New chat would start it. */
function DemoAgent({ onStarted }: { onStarted: (id: SessionId) => void }) {
  const available = useAppSelector((state) => state.agents.some((agent) => agent.name === DEMO_AGENT));
  const { startSession } = useActions();
  const [busy, setBusy] = useState(false);
  const start = async () => {
    setBusy(true);
    const id = await startSession(DEMO_AGENT, DEMO_MESSAGE);
    setBusy(false);
    if (id) onStarted(id);
  };
  return (
    <>
      <p>
        The {DEMO_AGENT} works offline, with no API key: it asks you two questions about a poem, waits for your answers, then writes it.
      </p>
      <button type="button" className="button" onClick={() => void start()} disabled={!available || busy}>
        {busy ? <Spinner /> : <Icon name="play" size={14} />}
        Try the demo agent
      </button>
      {available ? null : <p className="qhint">The {DEMO_AGENT} agent is not available in this Beckon.</p>}
    </>
  );
}

/**
 * The getting-started guide: what Beckon is, connecting agents to it, checking that
 * notifications reach the person, the demo agent, and starting at login. The window opens on
 * it in a new Beckon; "Got it" puts it away for good (Settings shows it again).
 */
export function GuideView({ onDone, onStarted }: { onDone: () => void; onStarted: (id: SessionId) => void }) {
  const { dismissGuide } = useActions();
  const dismissed = useAppSelector((state) => state.settings?.guide_dismissed ?? false);
  const [closing, setClosing] = useState(false);
  const done = async () => {
    setClosing(true);
    if (!dismissed) await dismissGuide();
    setClosing(false);
    onDone();
  };
  const gotIt = (
    <button type="button" className="button button-primary" onClick={() => void done()} disabled={closing}>
      {closing ? <Spinner /> : null}
      Got it
    </button>
  );
  return (
    <section className="view guide-view" aria-labelledby="guide-title">
      <header className="view-head">
        <div>
          <h1 id="guide-title">Welcome to Beckon</h1>
          <p className="view-sub">Getting started</p>
        </div>
        {gotIt}
      </header>
      <div className="view-body">
        <div className="guide">
          <p className="guide-intro">
            Beckon is an inbox where AI agents ask you questions. An agent&apos;s work pauses on its question; you answer here or from a notification, minutes or
            days later, and it carries on with your answer.
          </p>
          <AgentConnections legend="Connect your agents" installedOnly />
          <section className="settings-group guide-step" aria-labelledby="guide-other">
            <h2 id="guide-other">Other MCP clients and scripts</h2>
            <OtherAgents />
          </section>
          <section className="settings-group guide-step" aria-labelledby="guide-notify">
            <h2 id="guide-notify">Notifications</h2>
            <p>Questions reach you as notifications with buttons. Check that they do on this computer:</p>
            <TestNotification />
          </section>
          <section className="settings-group guide-step" aria-labelledby="guide-demo">
            <h2 id="guide-demo">The demo agent</h2>
            <DemoAgent onStarted={onStarted} />
          </section>
          <section className="settings-group guide-step" aria-labelledby="guide-login">
            <h2 id="guide-login">Always there</h2>
            <p>Agents ask while you are elsewhere: Beckon can start with your session and wait in the tray.</p>
            <StartAtLogin />
          </section>
          <div className="guide-actions">
            <p className="qhint">This guide stays under Settings.</p>
            {gotIt}
          </div>
        </div>
      </div>
    </section>
  );
}
