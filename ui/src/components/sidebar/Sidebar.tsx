import type { Route } from "../../state/route";
import { useAppSelector } from "../../state/store";
import { Icon } from "../common/Icon";
import { InboxButton } from "./InboxButton";
import { MetricsPanel } from "./MetricsPanel";
import { PersonPanel } from "./PersonPanel";
import { SessionList } from "./SessionList";
import { SIDEBAR_ID } from "./TopBar";

/**
 * The left column: new chat, the inbox with its count, sessions, figures and settings. In the
 * phone layout it is a panel over the view, shown while `open` (the top bar's menu button).
 */
export function Sidebar({ route, onNavigate, open = false }: { route: Route; onNavigate: (route: Route) => void; open?: boolean }) {
  // In a browser on a team server: no settings or chats of its own, the person instead.
  const person = useAppSelector((state) => state.person);
  const inInbox = route.view === "inbox";
  return (
    <aside id={SIDEBAR_ID} className={`sidebar${open ? " is-open" : ""}`}>
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
        <InboxButton current={inInbox} onOpen={() => onNavigate({ view: "inbox" })} iconSize={16} />
      </div>
      <SessionList currentId={route.view === "session" ? route.id : null} onOpen={(id) => onNavigate({ view: "session", id })} />
      <div className="sidebar-bottom">
        <MetricsPanel />
        {person ? <PersonPanel person={person} /> : null}
      </div>
    </aside>
  );
}
