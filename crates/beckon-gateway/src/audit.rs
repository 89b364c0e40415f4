//! `GET /v1/audit`: the audit trail — every resolved question and approval, who asked, who
//! answered, via what — as JSON Lines or CSV, streamed as it is read from the database Beckon
//! runs on (a team server's PostgreSQL, else the data folder's file), so an export of a million
//! rows never sits in memory on either side.
//!
//! Who reads what:
//! - the person's token (on a team server, the admin token) and signed-in members of the admin
//!   group read every row;
//! - any other signed-in person reads their share: the rows of questions addressed to them, to
//!   one of their groups or to everyone — as the question's session says, while retention
//!   keeps it (a row whose session is gone is nobody's, as everything left of a session is) —
//!   and the rows of what they answered themselves (recorded as their `oidc:<subject> (…)`,
//!   from their page or a channel account they paired) for as long as the row is kept. Nothing
//!   else is in it, not even as a row left out;
//! - an ask-only token is refused (403, by [`crate::permissions`]).

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Extension, Query, State};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::Response;
use beckon_runtime::api::ErrorKind;
use beckon_store::{AuditFilter, AuditRow, AuditShare};
use serde::Deserialize;
use tokio::sync::mpsc;

use crate::error::{ApiError, ApiResult};
use crate::principal::Principal;
use crate::state::Shared;

/// How much of the export goes out in one piece, at least, when rows are ready.
const CHUNK_BYTES: usize = 32 * 1024;

/// The columns of the CSV export, in order: the fields of [`AuditRow`] as serialised.
pub const CSV_COLUMNS: [&str; 17] = [
    "id",
    "request_id",
    "kind",
    "agent",
    "project",
    "machine",
    "session",
    "what",
    "asked_at_ms",
    "resolved_at_ms",
    "status",
    "decision",
    "via",
    "by",
    "rule_id",
    "message",
    "rule_key",
];

/// The formats the audit trail exports to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuditFormat {
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated values with a header row.
    Csv,
}

impl AuditFormat {
    /// Reads a format's name (`jsonl`, `csv`).
    pub fn parse(name: &str) -> Option<AuditFormat> {
        match name {
            "jsonl" => Some(AuditFormat::Jsonl),
            "csv" => Some(AuditFormat::Csv),
            _ => None,
        }
    }

    /// The format's name.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditFormat::Jsonl => "jsonl",
            AuditFormat::Csv => "csv",
        }
    }

    /// Its media type.
    pub fn content_type(self) -> &'static str {
        match self {
            AuditFormat::Jsonl => "application/jsonl; charset=utf-8",
            AuditFormat::Csv => "text/csv; charset=utf-8",
        }
    }
}

/// Turns audit rows into one format's bytes, row by row.
#[derive(Debug)]
pub struct AuditEncoder {
    format: AuditFormat,
}

impl AuditEncoder {
    /// An encoder for `format`.
    pub fn new(format: AuditFormat) -> AuditEncoder {
        AuditEncoder { format }
    }

    /// What comes before the first row: the CSV header (JSON Lines has none).
    pub fn start(&self) -> Result<Vec<u8>, String> {
        match self.format {
            AuditFormat::Jsonl => Ok(Vec::new()),
            AuditFormat::Csv => csv_bytes(|writer| writer.write_record(CSV_COLUMNS)),
        }
    }

    /// One row's bytes, its line ending included.
    pub fn row(&self, row: &AuditRow) -> Result<Vec<u8>, String> {
        match self.format {
            AuditFormat::Jsonl => {
                let mut line = serde_json::to_vec(row).map_err(|err| err.to_string())?;
                line.push(b'\n');
                Ok(line)
            }
            AuditFormat::Csv => csv_bytes(|writer| writer.serialize(row)),
        }
    }
}

/// The CSV bytes of what `write` writes: one record, quoted where it needs to be.
fn csv_bytes(write: impl FnOnce(&mut csv::Writer<Vec<u8>>) -> csv::Result<()>) -> Result<Vec<u8>, String> {
    let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
    write(&mut writer).map_err(|err| err.to_string())?;
    writer.into_inner().map_err(|err| err.to_string())
}

/// `?since_ms=&until_ms=&agent=&format=jsonl|csv`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditQuery {
    since_ms: Option<i64>,
    until_ms: Option<i64>,
    agent: Option<String>,
    format: Option<String>,
}

/// `GET /v1/audit`: the rows of the caller's share (see the module's notes) resolved in
/// `[since_ms, until_ms)`, by `agent` if given, in the order they were written, streamed in the
/// format asked for (JSON Lines unless told). A failure once the rows have begun ends the
/// response early, so a client never takes a cut export for a whole one.
pub async fn export(
    State(shared): State<Arc<Shared>>,
    Extension(principal): Extension<Principal>,
    Query(query): Query<AuditQuery>,
) -> ApiResult<Response> {
    let share = share_of(&principal)?;
    let format = match query.format.as_deref() {
        None => AuditFormat::Jsonl,
        Some(name) => AuditFormat::parse(name)
            .ok_or_else(|| ApiError::new(ErrorKind::BadRequest, "format must be jsonl or csv"))?,
    };
    if let (Some(since), Some(until)) = (query.since_ms, query.until_ms)
        && since > until
    {
        return Err(ApiError::new(ErrorKind::BadRequest, "since_ms must not be after until_ms"));
    }
    let filter = AuditFilter { since_ms: query.since_ms, until_ms: query.until_ms, agent: query.agent, after_id: None };
    let encoder = AuditEncoder::new(format);
    let header = encoder.start().map_err(|err| ApiError::new(ErrorKind::Internal, err))?;
    let rows = shared.beckon.audit().export_share(filter, share);
    let body = futures_util::stream::unfold(Some((rows, encoder, header)), |state| async move {
        let (mut rows, encoder, mut chunk) = state?;
        match fill(&mut rows, &encoder, &mut chunk).await {
            Ok(more) if chunk.is_empty() => more.then(|| (Ok(Bytes::new()), Some((rows, encoder, chunk)))),
            Ok(true) => Some((Ok(Bytes::from(chunk)), Some((rows, encoder, Vec::new())))),
            Ok(false) => Some((Ok(Bytes::from(chunk)), None)),
            Err(err) => {
                tracing::warn!(%err, "the audit export stopped");
                Some((Err(std::io::Error::other(err)), None))
            }
        }
    });
    let file = format!("attachment; filename=\"beckon-audit.{}\"", format.as_str());
    Response::builder()
        .header(CONTENT_TYPE, format.content_type())
        .header(CONTENT_DISPOSITION, file)
        .body(Body::from_stream(body))
        .map_err(|err| ApiError::new(ErrorKind::Internal, err.to_string()))
}

/// The part of the trail `principal` reads.
fn share_of(principal: &Principal) -> ApiResult<AuditShare> {
    match principal {
        Principal::Owner => Ok(AuditShare::Whole),
        Principal::Member(member) if member.admin => Ok(AuditShare::Whole),
        Principal::Member(member) => {
            Ok(AuditShare::Person { subject: member.person.subject.clone(), groups: member.person.groups.clone() })
        }
        // The guard refuses these before the handler; refused here too should a route ever
        // reach it another way.
        Principal::AskOnly { .. } => {
            Err(ApiError::new(ErrorKind::Forbidden, "an ask-only token cannot read the audit trail"))
        }
    }
}

/// Adds rows to `chunk` until it is large enough or no row is ready; false once the rows have
/// run out.
async fn fill(
    rows: &mut mpsc::Receiver<beckon_runtime::Result<AuditRow>>,
    encoder: &AuditEncoder,
    chunk: &mut Vec<u8>,
) -> Result<bool, String> {
    let Some(first) = rows.recv().await else { return Ok(false) };
    chunk.extend(encoder.row(&first.map_err(|err| err.to_string())?)?);
    while chunk.len() < CHUNK_BYTES {
        match rows.try_recv() {
            Ok(row) => chunk.extend(encoder.row(&row.map_err(|err| err.to_string())?)?),
            Err(mpsc::error::TryRecvError::Empty) => break,
            Err(mpsc::error::TryRecvError::Disconnected) => return Ok(false),
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use beckon_core::RequestId;
    use beckon_store::{AuditDecision, AuditKind, AuditVia, QuestionStatus};

    use super::*;

    fn row(id: i64, what: &str, message: Option<&str>) -> AuditRow {
        AuditRow {
            id,
            request_id: RequestId::parse("0190f1d2-7a3b-7c4d-8e5f-6a7b8c9d0e1f").unwrap(),
            kind: AuditKind::Approval,
            agent: "claude-code".into(),
            project: Some("/home/ada/shop".into()),
            machine: None,
            session: "5b0c".into(),
            what: what.into(),
            asked_at_ms: 1_000,
            resolved_at_ms: 2_000,
            status: QuestionStatus::Answered,
            decision: AuditDecision::Deny,
            via: Some(AuditVia::Window),
            by: None,
            rule_id: None,
            message: message.map(str::to_owned),
            rule_key: None,
        }
    }

    #[test]
    fn the_csv_columns_are_the_rows_fields_in_order() {
        let value = serde_json::to_value(row(1, "Bash: ls", None)).unwrap();
        let fields: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(fields, CSV_COLUMNS);
    }

    #[test]
    fn csv_quotes_what_needs_it_and_reads_back_into_the_same_rows() {
        let rows = [
            row(1, "Bash: echo \"a, b\"\nrm x", Some("no, \"never\"")),
            row(2, "Bash: ls", None),
            row(3, "=cmd|' /C calc'!A0", Some("")),
        ];
        let encoder = AuditEncoder::new(AuditFormat::Csv);
        let mut bytes = encoder.start().unwrap();
        for row in &rows {
            bytes.extend(encoder.row(row).unwrap());
        }
        let read: Vec<AuditRow> =
            csv::Reader::from_reader(bytes.as_slice()).deserialize().collect::<Result<_, _>>().unwrap();
        // An empty message reads back as none: CSV has no way to tell them apart.
        let mut expected = rows.to_vec();
        expected[2].message = None;
        assert_eq!(read, expected);
    }

    #[test]
    fn jsonl_is_one_object_per_line() {
        let encoder = AuditEncoder::new(AuditFormat::Jsonl);
        assert!(encoder.start().unwrap().is_empty());
        let line = encoder.row(&row(7, "Bash: ls\nmore", None)).unwrap();
        let text = String::from_utf8(line).unwrap();
        assert_eq!(text.matches('\n').count(), 1);
        let back: AuditRow = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(back, row(7, "Bash: ls\nmore", None));
    }

    #[test]
    fn formats_are_named() {
        assert_eq!(AuditFormat::parse("csv"), Some(AuditFormat::Csv));
        assert_eq!(AuditFormat::parse("jsonl"), Some(AuditFormat::Jsonl));
        assert_eq!(AuditFormat::parse("xml"), None);
    }
}
