import type { Answer } from "../../bindings/Answer";
import type { Approval } from "../../bindings/Approval";
import type { ApprovalChoice } from "../../bindings/ApprovalChoice";
import type { ChoiceQuestion } from "../../bindings/ChoiceQuestion";
import type { QuestionOption } from "../../bindings/QuestionOption";

/** The choices Beckon offers for this approval, in order; Allow and Deny when it does not say (an approval written before it did). */
export function choicesOf(approval: Approval): ApprovalChoice[] {
  return approval.choices ?? ["Allow", "Deny"];
}

/** The question's option for `choice` (its description and preview), when the approval offers it. */
export function optionOf(approval: Approval, item: ChoiceQuestion, choice: ApprovalChoice): QuestionOption | undefined {
  return choicesOf(approval).includes(choice) ? item.options.find((option) => option.label === choice) : undefined;
}

/** What the person decided, as the answer Beckon checks. */
export type ApprovalDecision =
  | { kind: "allow"; always: boolean; edited: string | null }
  | { kind: "deny"; message: string };

export function approvalAnswer(decision: ApprovalDecision): Answer {
  if (decision.kind === "deny") {
    const deny: ApprovalChoice = "Deny";
    const message = decision.message.trim();
    return message === "" ? { selected: [deny] } : { selected: [deny], comment: message };
  }
  const allow: ApprovalChoice = decision.always ? "Allow always" : "Allow";
  const answer: Answer = { selected: [allow] };
  if (decision.edited !== null) answer.value = decision.edited;
  return answer;
}
