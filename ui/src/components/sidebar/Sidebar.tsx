import type { Route } from "../../state/route";
import { pendingQuestions } from "../../state/selectors";
import { useAppSelector } from "../../state/store";
import { Icon } from "../common/Icon";
import { MetricsPanel } from "./MetricsPanel";
import { PersonPanel } from "./PersonPanel";
import { SessionList } from "./SessionList";

/** The left column: new chat, the inbox with its count, sessions, figures and settings. */
export function Sidebar({ route, onNavigate }: { route: Route; onNavigate: (route: Route) => void }) {
  const count = useAppSelector((state) => pendingQuestions(state).length);
  // In a browser on a team server: no settings or chats of its own, the person instead.
  const person = useAppSelector((state) => state.person);
  const inInbox = route.view === "inbox";
  return (
    <aside className="sidebar">
      <div className="sidebar-top">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">Beckon</span>
          {person ? null : (
            <button
              type="button"
              className={`icon-button settings-button${route.view === "settings" ? " current" : ""}`}
              aria-label="Settings"
              title="Settings"
              aria-current={route.view === "settings" ? "page" : undefined}
              onClick={() => onNavigate({ view: "settings" })}
            >
              <Icon name="gear" size={17} />
            </button>
          )}
        </div>
        {person ? null : (
          <button type="button" className="button button-primary new-chat" onClick={() => onNavigate({ view: "new" })} aria-current={route.view === "new" ? "page" : undefined}>
            <Icon name="plus" size={15} />
            New chat
          </button>
        )}
        <button
          type="button"
          className={`nav-item${inInbox ? " current" : ""}`}
          aria-current={inInbox ? "page" : undefined}
          onClick={() => onNavigate({ view: "inbox" })}
        >
          <Icon name="inbox" size={16} />
          <span className="nav-label">Inbox</span>
          <span className={`count${count > 0 ? " count-active" : ""}`} aria-hidden="true">
            {count}
          </span>
          <span className="visually-hidden">, {count} pending</span>
        </button>
      </div>
      <SessionList currentId={route.view === "session" ? route.id : null} onOpen={(id) => onNavigate({ view: "session", id })} />
      <div className="sidebar-bottom">
        <MetricsPanel />
        {person ? <PersonPanel person={person} /> : null}
      </div>
    </aside>
  );
}
