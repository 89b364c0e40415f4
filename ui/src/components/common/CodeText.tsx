/** Text with `backtick` spans shown as code; everything stays text (no Markdown, no HTML). */
export function CodeText({ text }: { text: string }) {
  const parts = text.split("`");
  // An unmatched backtick leaves the text as it is.
  if (parts.length % 2 === 0) return <>{text}</>;
  return <>{parts.map((part, index) => (index % 2 === 1 ? <code key={index}>{part}</code> : part))}</>;
}
