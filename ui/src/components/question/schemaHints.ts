import type { FieldSchema } from "../../bindings/FieldSchema";

const INPUT_TYPES = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" } as const;

/** The `<input type>` for a string schema's format. */
export function inputTypeFor(schema: FieldSchema): "text" | "email" | "url" | "date" | "datetime-local" {
  return schema.format ? INPUT_TYPES[schema.format] : "text";
}

/** A one-line description of a field's limits: "Between 1 and 5", "3–40 characters". */
export function limitsHint(schema: FieldSchema): string | null {
  const { minimum: min, maximum: max, minLength, maxLength } = schema;
  if (schema.type === "number" || schema.type === "integer") {
    const whole = schema.type === "integer" ? "A whole number" : "A number";
    if (min !== undefined && max !== undefined) return `${whole} from ${min} to ${max}`;
    if (min !== undefined) return `${whole}, at least ${min}`;
    if (max !== undefined) return `${whole}, at most ${max}`;
    return schema.type === "integer" ? "A whole number" : null;
  }
  if (schema.type === "string" && !schema.enum) {
    const format = schema.format === "email" ? "An email address" : schema.format === "uri" ? "A web address" : null;
    let length: string | null = null;
    if (minLength !== undefined && maxLength !== undefined) length = `${minLength}–${maxLength} characters`;
    else if (minLength !== undefined && minLength > 0) length = `at least ${minLength} characters`;
    else if (maxLength !== undefined) length = `up to ${maxLength} characters`;
    if (format && length) return `${format}, ${length}`;
    return format ?? (length ? length.charAt(0).toUpperCase() + length.slice(1) : null);
  }
  return null;
}

/** The title shown for an enum value (its `enumNames` entry when there is one). */
export function enumTitle(schema: FieldSchema, value: string): string {
  const index = schema.enum?.indexOf(value) ?? -1;
  return (index >= 0 ? schema.enumNames?.[index] : undefined) ?? value;
}
