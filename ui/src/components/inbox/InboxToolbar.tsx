import { useId, useState, type RefObject } from "react";
import { lastFolder, type AgeFilter, type GroupBy, type TriageFilter, type TriageKind } from "../../state/triage";
import { Icon } from "../common/Icon";
import { usePhoneLayout } from "../common/usePhoneLayout";

/** How many of the menus narrow the list (the search box is counted apart: it is always shown). */
function menusInUse(filter: TriageFilter): number {
  return [filter.kind !== "all", filter.agent !== null, filter.project !== null, filter.age !== "any"].filter(Boolean).length;
}

/**
 * The search box, the filters and the grouping choice above the list. In the phone layout the
 * menus fold behind a "Filters" button, so the list starts near the top of the screen.
 */
export function InboxToolbar({
  filter,
  onFilter,
  groupBy,
  onGroupBy,
  agents,
  projects,
  searchRef,
}: {
  filter: TriageFilter;
  onFilter: (filter: TriageFilter) => void;
  groupBy: GroupBy;
  onGroupBy: (by: GroupBy) => void;
  agents: readonly string[];
  projects: readonly string[];
  searchRef: RefObject<HTMLInputElement | null>;
}) {
  const phone = usePhoneLayout();
  const [menusOpen, setMenusOpen] = useState(false);
  const menusId = useId();
  const inUse = menusInUse(filter);
  return (
    <div className="inbox-toolbar" role="search">
      <input
        ref={searchRef}
        type="search"
        className="inbox-search"
        placeholder="Search questions, commands, agents, projects  ( / )"
        aria-label="Search questions"
        value={filter.search}
        onChange={(event) => onFilter({ ...filter, search: event.target.value })}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.stopPropagation();
            if (filter.search !== "") onFilter({ ...filter, search: "" });
            else event.currentTarget.blur();
          }
        }}
      />
      {phone ? (
        <button
          type="button"
          className={`button inbox-filters-toggle${inUse > 0 ? " in-use" : ""}`}
          aria-expanded={menusOpen}
          aria-controls={menusId}
          onClick={() => setMenusOpen(!menusOpen)}
        >
          Filters{inUse > 0 ? ` (${inUse})` : ""}
          <Icon name="chevron" size={13} className={menusOpen ? "chevron-open" : "chevron-closed"} />
        </button>
      ) : null}
      <div className="inbox-filters" id={menusId} hidden={phone && !menusOpen}>
        <label className="inbox-filter">
          <span>Kind</span>
          <select value={filter.kind} onChange={(event) => onFilter({ ...filter, kind: event.target.value as TriageKind | "all" })}>
            <option value="all">All kinds</option>
            <option value="approval">Approvals</option>
            <option value="question">Questions</option>
            <option value="form">Forms</option>
          </select>
        </label>
        <label className="inbox-filter">
          <span>Agent</span>
          <select value={filter.agent ?? ""} onChange={(event) => onFilter({ ...filter, agent: event.target.value === "" ? null : event.target.value })}>
            <option value="">All agents</option>
            {agents.map((agent) => (
              <option key={agent} value={agent}>
                {agent}
              </option>
            ))}
          </select>
        </label>
        <label className="inbox-filter">
          <span>Project</span>
          <select value={filter.project ?? ""} onChange={(event) => onFilter({ ...filter, project: event.target.value === "" ? null : event.target.value })}>
            <option value="">All projects</option>
            {projects.map((project) => (
              <option key={project} value={project} title={project}>
                {lastFolder(project)}
              </option>
            ))}
          </select>
        </label>
        <label className="inbox-filter">
          <span>Age</span>
          <select value={filter.age} onChange={(event) => onFilter({ ...filter, age: event.target.value as AgeFilter })}>
            <option value="any">Any age</option>
            <option value="hour">Older than 1 h</option>
            <option value="day">Older than 1 day</option>
          </select>
        </label>
        <label className="inbox-filter">
          <span>Group by</span>
          <select value={groupBy} onChange={(event) => onGroupBy(event.target.value as GroupBy)}>
            <option value="project">Project</option>
            <option value="agent">Agent</option>
            <option value="none">Nothing</option>
          </select>
        </label>
      </div>
    </div>
  );
}
