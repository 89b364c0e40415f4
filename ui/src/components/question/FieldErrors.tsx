/** Problems shown under the field they belong to; `id` lets the field name them as its description. */
export function FieldErrors({ id, messages }: { id: string; messages: readonly string[] | undefined }) {
  if (!messages || messages.length === 0) return null;
  return (
    <div className="field-errors" id={id}>
      {messages.map((message, index) => (
        <p key={index} className="field-error">
          {message}
        </p>
      ))}
    </div>
  );
}
