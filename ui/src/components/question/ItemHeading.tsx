/** An item's header chip and full question text. */
export function ItemHeading({ header, question, id, htmlFor }: { header?: string; question: string; id: string; htmlFor?: string }) {
  const text = htmlFor ? (
    <label className="qtext" id={id} htmlFor={htmlFor}>
      {question}
    </label>
  ) : (
    <div className="qtext" id={id}>
      {question}
    </div>
  );
  return (
    <div className="qheading">
      {header ? <span className="chip">{header}</span> : null}
      {text}
    </div>
  );
}
