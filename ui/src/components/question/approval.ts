import type { Answer } from "../../bindings/Answer";
import type { Approval } from "../../bindings/Approval";

export const ALLOW = "Allow";
export const ALLOW_ALWAYS = "Allow always";
export const DENY = "Deny";

/** The input field the person may edit before allowing (as Beckon's core decides it: only Claude Code takes an edited input back). */
export function editableField(approval: Approval): "command" | "content" | null {
  if (approval.by !== undefined) return null;
  const field = approval.tool_name === "Bash" ? "command" : approval.tool_name === "Write" ? "content" : null;
  return field !== null && typeof approval.input[field] === "string" ? field : null;
}

/** What the person decided, as the answer Beckon checks. */
export type ApprovalChoice =
  | { kind: "allow"; always: boolean; edited: string | null }
  | { kind: "deny"; message: string };

export function approvalAnswer(choice: ApprovalChoice): Answer {
  if (choice.kind === "deny") {
    const message = choice.message.trim();
    return message === "" ? { selected: [DENY] } : { selected: [DENY], comment: message };
  }
  const answer: Answer = { selected: [choice.always ? ALLOW_ALWAYS : ALLOW] };
  if (choice.edited !== null) answer.value = choice.edited;
  return answer;
}
