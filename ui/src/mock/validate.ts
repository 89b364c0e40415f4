import type { Answer } from "../bindings/Answer";
import type { Problem } from "../bindings/Problem";
import type { QuestionRequest } from "../bindings/QuestionRequest";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * A small stand-in for the backend's answer validation, so the mock can return
 * `invalid_answer` with real-looking paths (`answers[1].value`).
 */
export function validateAnswers(request: QuestionRequest, answers: readonly Answer[]): Problem[] {
  const problems: Problem[] = [];
  if (answers.length !== request.questions.length) {
    return [{ path: "answers", message: `expected ${request.questions.length} answers, got ${answers.length}` }];
  }
  request.questions.forEach((item, index) => {
    const answer = answers[index] ?? {};
    const path = `answers[${index}]`;
    if ("options" in item) {
      const labels = item.options.map((option) => option.label);
      const selected = answer.selected ?? [];
      selected.forEach((label, position) => {
        if (!labels.includes(label)) problems.push({ path: `${path}.selected[${position}]`, message: `"${label}" is not one of the options` });
      });
      const count = selected.length + (answer.other ? 1 : 0);
      if (!item.multiSelect && count !== 1) problems.push({ path: `${path}.selected`, message: "choose exactly one option or write your own" });
      if (item.multiSelect && count === 0) problems.push({ path: `${path}.selected`, message: "choose at least one option" });
      if (answer.other !== undefined && answer.other !== null && answer.other.trim() === "") problems.push({ path: `${path}.other`, message: "must not be empty" });
    } else {
      const { schema } = item;
      const value = answer.value;
      if (schema.type === "integer" || schema.type === "number") {
        if (typeof value !== "number") problems.push({ path: `${path}.value`, message: "must be a number" });
        else if (schema.type === "integer" && !Number.isInteger(value)) problems.push({ path: `${path}.value`, message: "must be a whole number" });
        else if (schema.minimum !== undefined && value < schema.minimum) problems.push({ path: `${path}.value`, message: `must be at least ${schema.minimum}` });
        else if (schema.maximum !== undefined && value > schema.maximum) problems.push({ path: `${path}.value`, message: `must be at most ${schema.maximum}` });
      } else if (schema.type === "string") {
        const text = typeof value === "string" ? value : "";
        if (schema.enum && !schema.enum.includes(text)) problems.push({ path: `${path}.value`, message: "must be one of the listed values" });
        if (schema.minLength !== undefined && text.length < schema.minLength) problems.push({ path: `${path}.value`, message: `must be at least ${schema.minLength} characters` });
        if (schema.maxLength !== undefined && text.length > schema.maxLength) problems.push({ path: `${path}.value`, message: `must be at most ${schema.maxLength} characters` });
        if (schema.format === "email" && !EMAIL.test(text)) problems.push({ path: `${path}.value`, message: "must be an email address" });
      }
    }
    if (answer.comment && answer.comment.length > 2000) problems.push({ path: `${path}.comment`, message: "must be at most 2000 characters" });
  });
  return problems;
}
