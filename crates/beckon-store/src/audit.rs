//! The `audit` table: one row per resolved question or approval, written by the transaction
//! that resolves it (so every way a question can end leaves its row), read back in pages by
//! id — whole, or one signed-in person's share ([`AuditShare`]) — and pruned by age on its own
//! schedule: the trail outlives the conversations it records.

use beckon_core::approval::ApprovalChoice;
use beckon_core::conversation::SessionStatus;
use beckon_core::{Answer, Answers, Audience, Outcome, QuestionKind, QuestionRequest, RequestId};
use serde_json::Value;

use crate::codec::{name, parse};
use crate::error::Result;
use crate::rows::{
    AUDIT_MESSAGE_MAX_CHARS, AUDIT_WHAT_MAX_CHARS, AuditDecision, AuditFilter, AuditKind, AuditRow, AuditShare,
    AuditVia, QuestionStatus, Resolution, SignedIn,
};
use crate::sql::{Conn, Row, args};
use crate::store::Tx;

/// Most rows one page returns.
pub const AUDIT_PAGE_MAX: usize = 1000;

/// The question as the audit needs it, as the update that resolved it returned it.
pub(crate) struct Asked {
    pub(crate) agent: String,
    pub(crate) request: QuestionRequest,
    pub(crate) asked_at_ms: i64,
    pub(crate) session_id: String,
    /// The name of the token that asked, if one did.
    pub(crate) machine: Option<String>,
}

impl Tx<'_> {
    /// Writes the audit row of the question `asked` this transaction just resolved; `rule` is
    /// the rule that allowed it, if one did.
    pub(crate) fn record_audit(&mut self, asked: &Asked, resolution: &Resolution, rule: Option<i64>) -> Result<()> {
        let row = Entry::of(asked, resolution, rule);
        self.tx.execute(
            "INSERT INTO audit (request_id, kind, agent, project, machine, session, what, asked_at, resolved_at,
                                status, decision, via, answered_by, rule_id, message, rule_key, rule_spec)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
            &args![
                resolution.request_id.to_string(),
                row.kind.as_str(),
                asked.agent,
                row.project,
                asked.machine,
                row.session,
                row.what,
                asked.asked_at_ms,
                resolution.at_ms,
                QuestionStatus::from(resolution.outcome.kind()).as_str(),
                row.decision.as_str(),
                row.via.map(AuditVia::as_str),
                resolution.by,
                rule,
                row.message,
                row.rule_key,
                row.rule_spec,
            ],
        )?;
        Ok(())
    }

    /// Deletes audit rows of questions resolved before `before_ms`; returns how many went.
    pub fn prune_audit(&mut self, before_ms: i64) -> Result<usize> {
        self.tx.execute("DELETE FROM audit WHERE resolved_at < ?1", &args![before_ms])
    }
}

/// An audit row's derived columns.
struct Entry {
    kind: AuditKind,
    project: Option<String>,
    session: String,
    what: String,
    decision: AuditDecision,
    via: Option<AuditVia>,
    message: Option<String>,
    rule_key: Option<String>,
    rule_spec: Option<String>,
}

impl Entry {
    fn of(asked: &Asked, resolution: &Resolution, rule: Option<i64>) -> Entry {
        let request = &asked.request;
        let approval = request.approval();
        let kind = match request.kind() {
            QuestionKind::Approval => AuditKind::Approval,
            QuestionKind::Form => AuditKind::Form,
            QuestionKind::Question => AuditKind::Question,
        };
        let first_answer = match &resolution.outcome {
            Outcome::Answered { answers } => answers.items().first(),
            Outcome::Declined { .. } | Outcome::Expired { .. } | Outcome::Cancelled { .. } => None,
        };
        let decision = match (approval, first_answer) {
            (Some(_), Some(answer)) => match ApprovalChoice::of(answer) {
                Some(ApprovalChoice::Allow) => AuditDecision::Allow,
                Some(ApprovalChoice::AllowAlways) => AuditDecision::AllowAlways,
                // A stored answer passed the approval's checks, so none names no choice.
                Some(ApprovalChoice::Deny) | None => AuditDecision::Deny,
            },
            _ => match QuestionStatus::from(resolution.outcome.kind()) {
                QuestionStatus::Answered => AuditDecision::Answered,
                QuestionStatus::Declined => AuditDecision::Declined,
                QuestionStatus::Expired => AuditDecision::Expired,
                QuestionStatus::Pending | QuestionStatus::Cancelled => AuditDecision::Cancelled,
            },
        };
        let via = match (resolution.via, &resolution.outcome) {
            (Some(via), _) => Some(AuditVia::from(via)),
            (None, Outcome::Expired { .. }) => Some(AuditVia::Deadline),
            // An external agent withdraws its question when the person answered in its own
            // terminal, and its session goes on (completed); a cancelled session ends cancelled.
            (None, Outcome::Cancelled { .. }) if resolution.session_status == Some(SessionStatus::Completed) => {
                Some(AuditVia::Terminal)
            }
            (None, Outcome::Cancelled { .. }) => Some(AuditVia::Cancelled),
            (None, Outcome::Answered { .. } | Outcome::Declined { .. }) => None,
        };
        let message = match (&resolution.outcome, approval) {
            (Outcome::Answered { answers }, Some(approval)) => match answers.items().first() {
                Some(answer) => match approval.decision(answer) {
                    beckon_core::PermissionDecision::Deny { message } => Some(message),
                    beckon_core::PermissionDecision::Allow { .. } => answer.comment.clone(),
                },
                None => None,
            },
            (Outcome::Answered { answers }, None) => Some(answers_in_words(answers)),
            (Outcome::Declined { reason } | Outcome::Cancelled { reason }, _) => reason.clone(),
            (Outcome::Expired { default_answer }, _) => default_answer.as_ref().map(answers_in_words),
        };
        let learned = match (approval, decision) {
            (Some(approval), AuditDecision::Allow | AuditDecision::AllowAlways) if rule.is_none() => {
                crate::rules::learn(approval)
            }
            _ => None,
        };
        let (rule_key, rule_spec) = match learned {
            Some((key, spec)) => (Some(key), Some(spec)),
            None => (None, None),
        };
        Entry {
            kind,
            project: approval.and_then(|a| a.project.clone()),
            session: approval.and_then(|a| a.session.clone()).unwrap_or_else(|| asked.session_id.clone()),
            what: one_line(&what(request), AUDIT_WHAT_MAX_CHARS),
            decision,
            via,
            message: message.map(|m| cut(m.trim(), AUDIT_MESSAGE_MAX_CHARS)).filter(|m| !m.is_empty()),
            rule_key,
            rule_spec,
        }
    }
}

/// What was asked, in a line: an approval's tool and its command, file or address; a
/// question's first header and text.
fn what(request: &QuestionRequest) -> String {
    if let Some(approval) = request.approval() {
        let detail = ["command", "file_path", "url", "path", "pattern"]
            .iter()
            .find_map(|key| approval.input.get(*key).and_then(Value::as_str));
        return match detail {
            Some(detail) => format!("{}: {detail}", approval.tool_name),
            None => approval.question_text(),
        };
    }
    match request.items().first() {
        Some(item) => match item.header() {
            Some(header) => format!("{header}: {}", item.question()),
            None => item.question().to_owned(),
        },
        None => String::new(),
    }
}

/// Answers as a person would read them: each question's choice, text or value, with its
/// comment.
fn answers_in_words(answers: &Answers) -> String {
    answers.items().iter().map(answer_in_words).collect::<Vec<_>>().join("; ")
}

fn answer_in_words(answer: &Answer) -> String {
    let mut parts: Vec<String> = Vec::new();
    if !answer.selected.is_empty() {
        parts.push(answer.selected.join(", "));
    }
    if let Some(other) = &answer.other {
        parts.push(other.clone());
    }
    match &answer.value {
        Some(Value::String(text)) => parts.push(text.clone()),
        Some(value) => parts.push(value.to_string()),
        None => {}
    }
    let mut text = parts.join(", ");
    if let Some(comment) = answer.comment.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        text = if text.is_empty() { comment.to_owned() } else { format!("{text} — {comment}") };
    }
    text
}

/// `text` on one line (control characters as spaces), at most `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    cut(line.trim(), max)
}

/// At most `max` characters of `text`, with an ellipsis when cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max.saturating_sub(1)) {
        Some((end, _)) if text[end..].chars().nth(1).is_some() => format!("{}…", &text[..end]),
        _ => text.to_owned(),
    }
}

const COLUMNS: &str = "id, request_id, kind, agent, project, machine, session, what, asked_at, resolved_at, status,
     decision, via, answered_by, rule_id, message, rule_key";

fn row(row: &Row<'_>) -> Result<AuditRow> {
    Ok(AuditRow {
        id: row.get(0)?,
        request_id: parse("audit", "request_id", row.text(1)?)?,
        kind: name("audit", "kind", row.text(2)?, AuditKind::parse)?,
        agent: row.get(3)?,
        project: row.get(4)?,
        machine: row.get(5)?,
        session: row.get(6)?,
        what: row.get(7)?,
        asked_at_ms: row.get(8)?,
        resolved_at_ms: row.get(9)?,
        status: name("audit", "status", row.text(10)?, QuestionStatus::parse)?,
        decision: name("audit", "decision", row.text(11)?, AuditDecision::parse)?,
        via: row.optional_text(12)?.map(|v| name("audit", "via", v, AuditVia::parse)).transpose()?,
        by: row.get(13)?,
        rule_id: row.get(14)?,
        message: row.get(15)?,
        rule_key: row.get(16)?,
    })
}

/// Up to `limit` (1..=[`AUDIT_PAGE_MAX`]) rows of `share` matching `filter`, in id order.
pub(crate) fn page(conn: Conn<'_>, filter: &AuditFilter, share: &AuditShare, limit: usize) -> Result<Vec<AuditRow>> {
    // A person's share as two parameters (both NULL for the whole trail): how their answers'
    // `answered_by` begins, and the audiences that are theirs as a JSON array.
    let (answered_by_start, audiences) = match share {
        AuditShare::Whole => (None, None),
        AuditShare::Person { subject, groups } => {
            let theirs = std::iter::once(Audience::Person(subject.clone()))
                .chain(groups.iter().cloned().map(Audience::Group))
                .map(|audience| audience.to_string())
                .collect::<Vec<_>>();
            (Some(SignedIn::answered_by_start(subject)), Some(Value::from(theirs).to_string()))
        }
    };
    let theirs =
        conn.pick("SELECT value FROM json_each(?7)", "SELECT json_array_elements_text(CAST(?7 AS TEXT)::json)");
    // A question's session without an audience is everyone's; a question no longer kept is
    // nobody's (but still theirs who answered it).
    conn.query(
        &format!(
            "SELECT {COLUMNS} FROM audit
             WHERE id > ?1 AND (CAST(?2 AS BIGINT) IS NULL OR resolved_at >= ?2) AND (CAST(?3 AS BIGINT) IS NULL OR resolved_at < ?3)
               AND (CAST(?4 AS TEXT) IS NULL OR agent = ?4)
               AND (CAST(?6 AS TEXT) IS NULL
                    OR substr(answered_by, 1, length(CAST(?6 AS TEXT))) = CAST(?6 AS TEXT)
                    OR EXISTS (SELECT 1 FROM questions q LEFT JOIN session_audiences a ON a.session_id = q.session_id
                               WHERE q.id = audit.request_id AND (a.audience IS NULL OR a.audience IN ({theirs}))))
             ORDER BY id LIMIT ?5"
        ),
        &args![
            filter.after_id.unwrap_or(0),
            filter.since_ms,
            filter.until_ms,
            filter.agent,
            limit.clamp(1, AUDIT_PAGE_MAX) as i64,
            answered_by_start,
            audiences
        ],
        row,
    )
}

/// The audit row of a question, if it was resolved (and the row not yet pruned).
pub(crate) fn of_question(conn: Conn<'_>, id: RequestId) -> Result<Option<AuditRow>> {
    conn.query_opt(&format!("SELECT {COLUMNS} FROM audit WHERE request_id = ?1"), &args![id.to_string()], row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_short_text_and_marks_what_it_shortens() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcd", 3), "ab…");
        assert_eq!(cut("ééééé", 4).chars().count(), 4);
        assert_eq!(one_line("a\nb\tc", 10), "a b c");
    }
}
