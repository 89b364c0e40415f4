/**
 * Agent-supplied text, drawn as text: newlines kept, long words and URLs wrapped. React escapes
 * it, so markup in it shows literally.
 */
export function MultilineText({ text, className }: { text: string; className?: string }) {
  return <div className={className ? `prose-text ${className}` : "prose-text"}>{text}</div>;
}
