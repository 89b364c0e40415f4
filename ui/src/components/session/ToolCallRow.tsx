import type { JsonValue } from "../../bindings/serde_json/JsonValue";
import { Icon } from "../common/Icon";
import { Spinner } from "../common/Spinner";

function preview(input: JsonValue): string {
  const text = typeof input === "string" ? input : JSON.stringify(input);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function pretty(content: string): string {
  try {
    return JSON.stringify(JSON.parse(content), null, 2);
  } catch {
    return content;
  }
}

/** A tool call, collapsed to one row; opening it shows the input and the result. */
export function ToolCallRow({
  name,
  input,
  result,
  running,
}: {
  name: string;
  input: JsonValue;
  result: { content: string; isError: boolean } | null;
  running: boolean;
}) {
  const failed = result?.isError ?? false;
  return (
    <details className={`tool-row${failed ? " tool-failed" : ""}`}>
      <summary>
        <Icon name="chevron" size={12} className="tool-chevron" />
        <Icon name="wrench" size={13} />
        <span className="tool-name">{name}</span>
        <span className="tool-preview">{preview(input)}</span>
        {failed ? (
          <span className="tool-status tool-status-error">
            <Icon name="alert" size={12} />
            Error
          </span>
        ) : result ? (
          <span className="tool-status tool-status-ok">
            <Icon name="check" size={12} />
            <span className="visually-hidden">Done</span>
          </span>
        ) : running ? (
          <span className="tool-status">
            <Spinner label="Running" />
          </span>
        ) : null}
      </summary>
      <div className="tool-detail">
        <p className="tool-detail-label">Input</p>
        <pre className="code">{JSON.stringify(input, null, 2)}</pre>
        <p className="tool-detail-label">{failed ? "Error" : "Result"}</p>
        {result ? <pre className={`code${failed ? " code-error" : ""}`}>{pretty(result.content)}</pre> : <p className="muted">No result yet.</p>}
      </div>
    </details>
  );
}
