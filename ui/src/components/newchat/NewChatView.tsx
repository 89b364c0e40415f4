import { useId, useState } from "react";
import type { SessionId } from "../../bindings/SessionId";
import { useActions, useAppSelector } from "../../state/store";
import { Icon } from "../common/Icon";
import { MessageBox } from "../session/MessageBox";

/** Starts a session: pick an agent (the default preselected) and write the first message. */
export function NewChatView({ onStarted }: { onStarted: (id: SessionId) => void }) {
  const agents = useAppSelector((state) => state.agents);
  const defaultAgent = useAppSelector((state) => state.defaultAgent);
  const agentProblems = useAppSelector((state) => state.agentProblems);
  const { startSession } = useActions();
  const [agent, setAgent] = useState(() => (agents.some((info) => info.name === defaultAgent) ? defaultAgent : agents[0]?.name ?? defaultAgent));
  const pickerId = useId();
  const chosen = agents.find((info) => info.name === agent);
  return (
    <section className="view new-chat-view" aria-labelledby="new-chat-title">
      <header className="view-head">
        <div>
          <h1 id="new-chat-title">New chat</h1>
          <p className="view-sub">Start a session with an agent. It asks here when it needs you.</p>
        </div>
      </header>
      <div className="view-body">
        <div className="new-chat-panel">
          <div className="new-chat-agent">
            <label htmlFor={pickerId} className="field-label">
              Agent
            </label>
            <select id={pickerId} className="select" value={agent} onChange={(event) => setAgent(event.target.value)}>
              {agents.map((info) => (
                <option key={info.name} value={info.name}>
                  {info.name}
                  {info.name === defaultAgent ? " (default)" : ""}
                </option>
              ))}
            </select>
            {chosen?.description ? <p className="qhint">{chosen.description}</p> : null}
          </div>
          <MessageBox
            label="First message"
            placeholder={`What should ${agent || "the agent"} do?`}
            sendLabel="Start"
            disabled={agent === ""}
            onSend={async (text) => {
              const id = await startSession(agent, text);
              if (id) onStarted(id);
              return id !== null;
            }}
          />
          {agentProblems.length > 0 ? (
            <div className="notice" role="note">
              <Icon name="alert" size={15} />
              <div>
                <p>Some agent files could not be loaded:</p>
                <ul>
                  {agentProblems.map((problem) => (
                    <li key={problem.file}>
                      <code>{problem.file}</code> — {problem.message}
                    </li>
                  ))}
                </ul>
              </div>
            </div>
          ) : null}
        </div>
      </div>
    </section>
  );
}
