import type { Ref } from "react";
import type { Route } from "../../state/route";
import { Icon } from "../common/Icon";
import { InboxButton } from "./InboxButton";

/** The id of the sidebar, which the menu button shows and hides in the phone layout. */
export const SIDEBAR_ID = "sidebar";

/**
 * The bar over the view in the phone layout, where the sidebar does not fit beside it: the menu
 * button that slides the sidebar in, and the inbox with its count, one tap away from any view.
 */
export function TopBar({
  route,
  menuOpen,
  onToggleMenu,
  onNavigate,
  menuButtonRef,
}: {
  route: Route;
  menuOpen: boolean;
  onToggleMenu: () => void;
  onNavigate: (route: Route) => void;
  menuButtonRef: Ref<HTMLButtonElement>;
}) {
  return (
    <header className="topbar">
      <button
        ref={menuButtonRef}
        type="button"
        className="icon-button topbar-menu"
        aria-label="Menu"
        aria-expanded={menuOpen}
        aria-controls={SIDEBAR_ID}
        onClick={onToggleMenu}
      >
        <Icon name={menuOpen ? "x" : "menu"} size={20} />
      </button>
      <span className="brand topbar-brand">
        <span className="brand-mark" aria-hidden="true" />
        <span className="brand-name">Beckon</span>
      </span>
      <InboxButton className="topbar-inbox" current={route.view === "inbox"} onOpen={() => onNavigate({ view: "inbox" })} iconSize={18} />
    </header>
  );
}
