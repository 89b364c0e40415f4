import type { ChoiceQuestion } from "../../bindings/ChoiceQuestion";
import type { FreeFormQuestion } from "../../bindings/FreeFormQuestion";
import type { QuestionItem } from "../../bindings/QuestionItem";

/** True for an item with options (as opposed to a free-form one with a schema). */
export function isChoice(item: QuestionItem): item is ChoiceQuestion {
  return "options" in item;
}

/** True for a free-form item. */
export function isFreeForm(item: QuestionItem): item is FreeFormQuestion {
  return "schema" in item;
}
