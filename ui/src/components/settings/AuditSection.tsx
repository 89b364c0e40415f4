import { useId, useState } from "react";
import { errorBodyOf } from "../../api/errors";
import type { AuditFormat } from "../../api/triage";
import { useBackendHandles } from "../../state/store";
import { Spinner } from "../common/Spinner";

/** Settings › Audit: writes every question and how it was answered to a file, as JSON lines or CSV. */
export function AuditSection() {
  const { api } = useBackendHandles();
  const id = useId();
  const [busy, setBusy] = useState<AuditFormat | null>(null);
  const [written, setWritten] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const exportAs = async (format: AuditFormat) => {
    setBusy(format);
    setError(null);
    setWritten(null);
    try {
      setWritten(await api.exportAudit(format));
    } catch (failure) {
      setError(errorBodyOf(failure).message);
    }
    setBusy(null);
  };

  return (
    <fieldset className="settings-group audit" aria-labelledby={`${id}-title`}>
      <legend id={`${id}-title`}>Audit</legend>
      <p className="qhint">Every question, who asked, and how and by what it was answered (a person, a front end, a rule).</p>
      <div className="key-row">
        <button type="button" className="button button-small" disabled={busy !== null} onClick={() => void exportAs("jsonl")}>
          {busy === "jsonl" ? <Spinner /> : null}
          Export as JSON lines
        </button>
        <button type="button" className="button button-small" disabled={busy !== null} onClick={() => void exportAs("csv")}>
          {busy === "csv" ? <Spinner /> : null}
          Export as CSV
        </button>
      </div>
      {written ? (
        <p className="saved-note" role="status">
          Written to <code>{written}</code>
        </p>
      ) : null}
      {error ? <p className="form-error" role="alert">{error}</p> : null}
    </fieldset>
  );
}
