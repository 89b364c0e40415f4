//! `beckon audit`: the audit trail from the running Beckon, streamed to standard output or to
//! a file as it arrives — a million rows never sit in memory.

mod when;

use std::path::{Path, PathBuf};

use crate::cli::{AuditArgs, AuditFormatArg, Connection};
use crate::error::{CliError, CliResult, Exit};

/// Runs `beckon audit`, spans like `7d` counted back from `now_ms`.
pub async fn run(connection: &Connection, args: AuditArgs, now_ms: i64) -> CliResult<Exit> {
    let mut query = Vec::new();
    let since = args.since.as_deref().map(|text| when::parse(text, now_ms)).transpose().map_err(CliError::Input)?;
    let until = args.until.as_deref().map(|text| when::parse(text, now_ms)).transpose().map_err(CliError::Input)?;
    if let (Some(since), Some(until)) = (since, until)
        && since > until
    {
        return Err(CliError::Input("--since is after --until".into()));
    }
    query.extend(since.map(|ms| ("since_ms", ms.to_string())));
    query.extend(until.map(|ms| ("until_ms", ms.to_string())));
    query.extend(args.agent.map(|agent| ("agent", agent)));
    let format = match args.format {
        AuditFormatArg::Jsonl => "jsonl",
        AuditFormatArg::Csv => "csv",
    };
    query.push(("format", format.to_owned()));
    let client = connection.client()?;
    match args.output {
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            client.audit(&query, &mut out).await?;
        }
        Some(file) => {
            let partial = partial_path(&file);
            let io = |err: std::io::Error| CliError::Io(format!("cannot write {}: {err}", file.display()));
            let mut out = std::io::BufWriter::new(std::fs::File::create(&partial).map_err(io)?);
            let written = match client.audit(&query, &mut out).await {
                Ok(written) => written,
                Err(err) => {
                    drop(out);
                    let _ = std::fs::remove_file(&partial);
                    return Err(err.into());
                }
            };
            let finished = out.into_inner().map_err(|err| err.into_error()).and_then(|done| done.sync_all());
            if let Err(err) = finished.and_then(|()| std::fs::rename(&partial, &file)) {
                let _ = std::fs::remove_file(&partial);
                return Err(io(err));
            }
            eprintln!("Wrote the audit trail to {} ({written} bytes).", file.display());
        }
    }
    Ok(Exit::Success)
}

/// Where an export to `file` is written until it is whole: beside it, hidden, so the rename
/// that finishes it stays on one file system.
fn partial_path(file: &Path) -> PathBuf {
    let name = file.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_else(|| "audit".into());
    file.with_file_name(format!(".{name}.{}.partial", std::process::id()))
}
