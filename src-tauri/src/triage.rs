//! The window's triage commands that are more than a call to the runtime: deciding many
//! questions at once (across the team inboxes they wait in) and exporting the audit trail.

use std::path::{Path, PathBuf};

use beckon_core::{AnsweredVia, RequestId};
use beckon_gateway::audit::{AuditEncoder, AuditFormat};
use beckon_runtime::api::ErrorKind;
use beckon_runtime::api::window::{AnswerBatch, WindowCommand};
use beckon_runtime::{BatchReceipt, Beckon};
use beckon_store::AuditFilter;
use tauri::{AppHandle, Manager};

use crate::command_error::{CommandError, Reply};
use crate::state::App;

fn beckon(app: &App) -> Reply<&Beckon> {
    app.beckon.as_ref().map_err(|err| CommandError::new(ErrorKind::Unavailable, err.to_string(), None))
}

/// Decides the questions `request_ids` at once, as the person in the window: denies or allows
/// once approvals, declines questions. Each is decided as it would be alone; those that cannot
/// be are listed with why. A team inbox's questions are decided on its server, as the person.
pub(crate) async fn answer_batch(app: &App, AnswerBatch { request_ids, decision }: AnswerBatch) -> Reply<BatchReceipt> {
    let ids = request_ids
        .iter()
        .map(|id| id.parse::<RequestId>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| CommandError::new(ErrorKind::InvalidInput, err.to_string(), Some("request_ids")))?;
    let mut local = Vec::new();
    let mut teams: Vec<(beckon_gateway::team_inbox::TeamInbox, Vec<String>)> = Vec::new();
    for id in ids {
        match app.teams.owner_of(id) {
            Some(inbox) => match teams.iter_mut().find(|(known, _)| known.url() == inbox.url()) {
                Some((_, ids)) => ids.push(id.to_string()),
                None => teams.push((inbox, vec![id.to_string()])),
            },
            None => local.push(id),
        }
    }
    let mut receipt = if local.is_empty() {
        BatchReceipt::default()
    } else {
        beckon(app)?.resolve_batch(local, AnsweredVia::Window, decision.clone()).await?
    };
    for (inbox, request_ids) in teams {
        let theirs: BatchReceipt = crate::team::window_call::team_call(
            &inbox,
            &WindowCommand::AnswerBatch(AnswerBatch { request_ids, decision: decision.clone() }),
        )
        .await?;
        receipt.resolved.extend(theirs.resolved);
        receipt.failed.extend(theirs.failed);
    }
    Ok(receipt)
}

/// Writes the whole audit trail as `format` (`jsonl` or `csv`) into the person's downloads
/// folder (the data folder when there is none), whole or not at all; the file's path.
pub(crate) async fn export_audit(handle: &AppHandle, beckon: &Beckon, format: &str) -> Reply<String> {
    let format = AuditFormat::parse(format)
        .ok_or_else(|| CommandError::new(ErrorKind::InvalidInput, "format must be jsonl or csv", Some("format")))?;
    let folder = handle.path().download_dir().unwrap_or_else(|_| beckon.configuration().data_dir().to_path_buf());
    let now_ms = beckon.clock().now_ms();
    let file = folder.join(format!("beckon-audit-{}.{}", stamp(now_ms), format.as_str()));
    let rows = beckon.audit().export(AuditFilter::default());
    write_export(&file, format, rows).await.map_err(|err| {
        CommandError::new(ErrorKind::Internal, format!("could not write {}: {err}", file.display()), None)
    })?;
    Ok(file.display().to_string())
}

/// Streams `rows` into `file` as `format`: into a hidden file beside it first, renamed into
/// place once every row is on disk.
async fn write_export(
    file: &Path,
    format: AuditFormat,
    mut rows: tokio::sync::mpsc::Receiver<beckon_runtime::Result<beckon_store::AuditRow>>,
) -> Result<(), String> {
    use std::io::Write;

    let partial = partial_path(file);
    let written: Result<(), String> = async {
        if let Some(folder) = file.parent() {
            std::fs::create_dir_all(folder).map_err(|err| err.to_string())?;
        }
        let mut out = std::io::BufWriter::new(std::fs::File::create(&partial).map_err(|err| err.to_string())?);
        let encoder = AuditEncoder::new(format);
        out.write_all(&encoder.start()?).map_err(|err| err.to_string())?;
        while let Some(row) = rows.recv().await {
            let row = row.map_err(|err| err.to_string())?;
            out.write_all(&encoder.row(&row)?).map_err(|err| err.to_string())?;
        }
        let done = out.into_inner().map_err(|err| err.into_error().to_string())?;
        done.sync_all().map_err(|err| err.to_string())?;
        std::fs::rename(&partial, file).map_err(|err| err.to_string())
    }
    .await;
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}

fn partial_path(file: &Path) -> PathBuf {
    let name = file.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    file.with_file_name(format!(".{name}.partial"))
}

/// `2026-11-26-0534` (UTC) for Unix milliseconds: file names that sort by time.
fn stamp(ms: i64) -> String {
    let seconds = ms.div_euclid(1000);
    let (days, of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    // Days since 1970-01-01 to a civil date (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 { month_from_march + 3 } else { month_from_march - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}-{:02}{:02}", of_day / 3600, of_day % 3600 / 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_read_as_utc_dates_and_times() {
        assert_eq!(stamp(0), "1970-01-01-0000");
        assert_eq!(stamp(951_868_800_000), "2000-03-01-0000");
        assert_eq!(stamp(1_709_164_800_000 + 23 * 3_600_000 + 59 * 60_000), "2024-02-29-2359");
        assert_eq!(stamp(1_793_525_400_000), "2026-11-01-0930");
    }
}
