/** A small busy indicator; `label` names it for assistive tech when it stands alone. */
export function Spinner({ label }: { label?: string }) {
  return label ? (
    <span className="spinner" role="img" aria-label={label} />
  ) : (
    <span className="spinner" aria-hidden="true" />
  );
}
