import type { MouseEvent } from "react";
import { shortAge } from "../../format/duration";
import type { TriageGroup, TriageKind, TriageRow } from "../../state/triage";
import { count } from "../../state/triage";
import { Icon, type IconName } from "../common/Icon";

const KIND_ICON: Record<TriageKind, IconName> = { approval: "wrench", question: "message", form: "sparkle" };
const KIND_LABEL: Record<TriageKind, string> = { approval: "Approval", question: "Question", form: "Form" };

/** The DOM id of a row, for `aria-activedescendant`. */
export function rowDomId(id: string): string {
  return `inbox-row-${id}`;
}

/**
 * A row's accessible name: its visible text in the order it is drawn (agent, team inbox, project,
 * outcome, what is asked, age), then what kind of question it is.
 */
export function rowName(row: TriageRow, age: string): string {
  const meta = [row.agent, row.question.inbox, row.projectName, row.question.status === "pending" ? null : row.question.status].filter(Boolean).join(" · ");
  const team = row.question.inbox ? `, in the team inbox ${row.question.inbox}` : "";
  return `${meta}: ${row.summary}, ${age} — ${KIND_LABEL[row.kind].toLowerCase()}${team}`;
}

/** One compact line of the inbox: kind, agent, project, what is asked, and how long it waited. */
export function InboxRow({
  row,
  top,
  height,
  focused,
  selected,
  now,
  onClick,
  onToggle,
}: {
  row: TriageRow;
  top: number;
  height: number;
  focused: boolean;
  selected: boolean;
  now: number;
  onClick: (event: MouseEvent) => void;
  onToggle: (event: MouseEvent) => void;
}) {
  const resolved = row.question.status !== "pending";
  const age = shortAge(row.createdAt, now);
  return (
    <div
      id={rowDomId(row.id)}
      role="option"
      aria-selected={selected}
      aria-current={focused ? "true" : undefined}
      aria-label={rowName(row, age)}
      className={`inbox-row${focused ? " is-focused" : ""}${selected ? " is-selected" : ""}${resolved ? " is-resolved" : ""}`}
      data-request-id-row={row.id}
      data-kind={row.kind}
      style={{ top, height }}
      onClick={onClick}
    >
      {/* The option's own selected state is what assistive technology reads; this box is for the pointer. */}
      <span className={`inbox-row-check${selected ? " is-checked" : ""}`} aria-hidden="true" onClick={onToggle} />
      <span className={`inbox-row-kind kind-${row.kind}`} title={KIND_LABEL[row.kind]}>
        <Icon name={KIND_ICON[row.kind]} size={14} />
      </span>
      {/* The spaces between the parts (which the flex layout does not draw) keep the words apart
          where the row's text is read as one string. */}
      <span className="inbox-row-main">
        <span className="inbox-row-meta">
          <span className="inbox-row-agent">{row.agent}</span>{" "}
          {row.question.inbox ? (
            <>
              <span className="inbox-row-team" title={`Waits in the team inbox ${row.question.inbox}`}>
                {row.question.inbox}
              </span>{" "}
            </>
          ) : null}
          {row.projectName ? (
            <>
              <span className="inbox-row-project" title={row.project}>
                {row.projectName}
              </span>{" "}
            </>
          ) : null}
          {resolved ? <span className="inbox-row-done">{row.question.status}</span> : null}
        </span>{" "}
        <span className="inbox-row-summary">{row.summary}</span>
      </span>{" "}
      <span className="inbox-row-age">{age}</span>
    </div>
  );
}

/** A group's header: its name and count, open or closed, and "Select all" for its rows. */
export function GroupHeader({
  group,
  collapsed,
  top,
  height,
  onToggleCollapsed,
  onSelectAll,
}: {
  group: TriageGroup;
  collapsed: boolean;
  top: number;
  height: number;
  onToggleCollapsed: () => void;
  onSelectAll: () => void;
}) {
  return (
    <div className="inbox-group" style={{ top, height }}>
      <button type="button" className="inbox-group-toggle" aria-expanded={!collapsed} onClick={onToggleCollapsed}>
        <Icon name="chevron" size={13} className={collapsed ? "chevron-closed" : "chevron-open"} />
        <span className="inbox-group-label">{group.label}</span>
        <span className="inbox-group-count">{count(group.rows.length)}</span>
      </button>
      <button type="button" className="link-button inbox-group-select" onClick={onSelectAll} aria-label={`Select all in this group (${group.label})`} title="Select all in this group">
        Select all
      </button>
    </div>
  );
}
