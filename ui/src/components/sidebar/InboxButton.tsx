import { pendingQuestions } from "../../state/selectors";
import { useAppSelector } from "../../state/store";
import { Icon } from "../common/Icon";

/** The way to the inbox, with how many questions wait: in the sidebar, and in the phone layout's top bar. */
export function InboxButton({ current, onOpen, iconSize, className = "" }: { current: boolean; onOpen: () => void; iconSize: number; className?: string }) {
  const count = useAppSelector((state) => pendingQuestions(state).length);
  return (
    <button
      type="button"
      className={`nav-item${className ? ` ${className}` : ""}${current ? " current" : ""}`}
      aria-current={current ? "page" : undefined}
      onClick={onOpen}
    >
      <Icon name="inbox" size={iconSize} />
      <span className="nav-label">Inbox</span>
      <span className={`count${count > 0 ? " count-active" : ""}`} aria-hidden="true">
        {count}
      </span>
      <span className="visually-hidden">, {count} pending</span>
    </button>
  );
}
