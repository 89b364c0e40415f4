import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import type { RuleRecord, RuleSpec } from "../../api/triage";
import { MINUTE, NOW } from "../../../test/builders";
import { fakeApi, renderWithStore } from "../../../test/render";
import { AuditSection } from "./AuditSection";
import { RulesSection } from "./RulesSection";

afterEach(cleanup);

function rule(id: number, fields: Partial<RuleRecord> = {}): RuleRecord {
  return {
    id,
    spec: { tool: "Bash", matcher: { kind: "command", prefix: "npm test" }, project: "/home/ada/src/shop" },
    key: `rule-${id}`,
    description: "Allow `npm test` in shop",
    source: "offered",
    created_at_ms: NOW - 3 * 60 * MINUTE,
    fired: 7,
    last_fired_at_ms: NOW - 5 * MINUTE,
    revoked_at_ms: null,
    ...fields,
  };
}

function renderRules(start: RuleRecord[]) {
  const calls: string[] = [];
  const api = fakeApi({
    rules: (includeRevoked) => {
      calls.push(`rules ${includeRevoked}`);
      return Promise.resolve(start);
    },
    revokeRule: (id) => {
      calls.push(`revoke ${id}`);
      return Promise.resolve(rule(id, { revoked_at_ms: NOW }));
    },
    createRule: (spec: RuleSpec, source) => {
      calls.push(`create ${source} ${JSON.stringify(spec)}`);
      if (!spec.project.startsWith("/")) return Promise.reject({ kind: "invalid_input", message: "The project must be an absolute folder path.", field: "spec.project", problems: [{ path: "spec.project", message: "The project must be an absolute folder path." }] });
      if (spec.matcher.kind === "command" && spec.matcher.prefix === "") return Promise.reject({ kind: "invalid_input", message: "A command rule needs the start of the command.", field: "spec.matcher.prefix" });
      return Promise.resolve(rule(9, { spec, description: "Allow `cargo test` in api", source: "hand", fired: 0, last_fired_at_ms: null }));
    },
  });
  renderWithStore(<RulesSection />, { api });
  return calls;
}

describe("Settings › Rules", () => {
  it("lists each rule with what it covers, where, since when, how often it fired and where it came from", async () => {
    renderRules([rule(3), rule(4, { description: "Every Read in docs", source: "hand", fired: 1, last_fired_at_ms: null, spec: { tool: "Read", matcher: { kind: "tool" }, project: "/srv/docs" } })]);
    const list = await screen.findByRole("list", { name: "Rules" });
    const [first, second] = within(list).getAllByRole("listitem");
    expect(first).toHaveTextContent("Allow npm test in shop");
    expect(within(first as HTMLElement).getByText("npm test").tagName).toBe("CODE");
    expect(first).toHaveTextContent("in shop · offered · since 3 h ago · fired 7 times · last 5 min ago");
    expect(second).toHaveTextContent("in docs · by hand · since 3 h ago · fired once");
  });

  it("revokes a rule", async () => {
    const calls = renderRules([rule(3)]);
    await userEvent.click(await screen.findByRole("button", { name: /Revoke rule 3/ }));
    expect(calls).toContain("revoke 3");
    expect(await screen.findByText("No rules yet.")).toBeInTheDocument();
  });

  it("adds a rule by hand and shows the backend's errors beside the field they name", async () => {
    const calls = renderRules([]);
    await screen.findByText("No rules yet.");
    const form = screen.getByRole("group", { name: "Add a rule" });
    await userEvent.clear(within(form).getByRole("textbox", { name: "Tool" }));
    await userEvent.type(within(form).getByRole("textbox", { name: "Tool" }), "Bash");
    await userEvent.type(within(form).getByRole("textbox", { name: "Project" }), "shop");
    await userEvent.click(within(form).getByRole("button", { name: "Add the rule" }));
    const project = within(form).getByRole("textbox", { name: "Project" });
    expect(project).toHaveAttribute("aria-invalid", "true");
    expect(project).toHaveAccessibleDescription("The project must be an absolute folder path.");

    await userEvent.clear(project);
    await userEvent.type(project, "/srv/api");
    await userEvent.click(within(form).getByRole("button", { name: "Add the rule" }));
    const prefix = within(form).getByRole("textbox", { name: "Command prefix" });
    expect(prefix).toHaveAccessibleDescription("A command rule needs the start of the command.");
    expect(project).not.toHaveAttribute("aria-invalid");

    await userEvent.type(prefix, "cargo test{Enter}");
    expect(calls.at(-1)).toBe(`create hand ${JSON.stringify({ tool: "Bash", matcher: { kind: "command", prefix: "cargo test" }, project: "/srv/api" })}`);
    expect(await screen.findByRole("list", { name: "Rules" })).toHaveTextContent("Allow cargo test in api");
  });

  it("asks for a folder when the rule covers paths, and for nothing more for a whole tool", async () => {
    const calls = renderRules([]);
    await screen.findByText("No rules yet.");
    const form = screen.getByRole("group", { name: "Add a rule" });
    await userEvent.selectOptions(within(form).getByRole("combobox", { name: "Covers" }), "tool");
    expect(within(form).queryByRole("textbox", { name: /prefix|Folder/ })).not.toBeInTheDocument();
    await userEvent.type(within(form).getByRole("textbox", { name: "Project" }), "/srv/api");
    await userEvent.click(within(form).getByRole("button", { name: "Add the rule" }));
    expect(calls.at(-1)).toBe(`create hand ${JSON.stringify({ tool: "Bash", matcher: { kind: "tool" }, project: "/srv/api" })}`);
  });
});

describe("Settings › Audit", () => {
  it("exports as JSON lines or CSV and says where the file was written", async () => {
    const formats: string[] = [];
    const api = fakeApi({
      exportAudit: (format) => {
        formats.push(format);
        return format === "csv" ? Promise.reject({ kind: "internal", message: "disk full" }) : Promise.resolve("/home/ada/Downloads/beckon-audit.jsonl");
      },
    });
    renderWithStore(<AuditSection />, { api });
    await userEvent.click(screen.getByRole("button", { name: "Export as JSON lines" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Written to /home/ada/Downloads/beckon-audit.jsonl");
    await userEvent.click(screen.getByRole("button", { name: "Export as CSV" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("disk full");
    expect(formats).toEqual(["jsonl", "csv"]);
  });
});
