//! Read-only queries, on the store ([`Store::read`]) or inside a write transaction
//! ([`Tx::read`]): one entry to every table's reads.

use beckon_core::conversation::SessionStatus;
use beckon_core::{Addressees, Audience, RequestId, SessionId};

use crate::error::Result;
use crate::rows::{
    AuditFilter, AuditRow, AuditShare, ChannelMessage, ChannelPerson, ChannelScope, ChannelWork, Deadline,
    DeliveryState, DueCursor, InboxEntry, Lease, ListedSession, Metrics, OutboxEntry, PendingQuestion, PersonSession,
    PushDevice, PushDue, PushState, QuestionRecord, QuestionStatus, RuleOffer, RuleRecord, SessionFilter, SessionPage,
    SessionRecord, SessionSummary, StoredEvent, TimelineEntry, TokenId, TokenRecord, Workload,
};
use crate::sql::Conn;
use crate::store::{Store, Tx};
use crate::{
    audiences, audit, channel_messages, channel_people, events, leases, messages, metrics, outbox, pairing_misses,
    people, push, questions, rules, sessions, settings, tokens,
};

/// Read-only access to the database.
#[derive(Debug, Clone, Copy)]
pub struct Reader<'c> {
    conn: Conn<'c>,
}

impl Store {
    /// Read-only queries on the latest committed data.
    pub fn read(&self) -> Reader<'_> {
        // A lost connection is made again here; if that fails too, the read reports it.
        let _ = self.reconnect_if_lost();
        Reader { conn: self.conn() }
    }
}

impl Tx<'_> {
    /// Queries that see this transaction's own writes.
    pub fn read(&self) -> Reader<'_> {
        Reader { conn: self.tx }
    }
}

impl Reader<'_> {
    /// Whose `session` is on a team server; `None` when it is everyone's.
    pub fn session_audience(&self, session: SessionId) -> Result<Option<Audience>> {
        audiences::session_audience(self.conn, session)
    }

    /// Whether the database answers and its schema is the one this build migrates to: what a
    /// replica's readiness rests on.
    pub fn schema_current(&self) -> Result<bool> {
        let (sql, current) = match self.conn {
            Conn::Sqlite(_) => ("PRAGMA user_version", crate::SCHEMA_VERSION),
            Conn::Postgres(_) => ("SELECT version FROM beckon_schema", crate::POSTGRES_SCHEMA_VERSION),
        };
        let found = self.conn.query_opt(sql, &[], |row| row.get::<i64>(0))?;
        Ok(found == Some(current))
    }

    /// Who may see `session` on a team server (nobody when there is no such session).
    pub fn session_addressees(&self, session: SessionId) -> Result<Addressees> {
        audiences::session_addressees(self.conn, session)
    }

    /// Whose question `request` is on a team server; `None` when it is everyone's.
    pub fn question_audience(&self, request: RequestId) -> Result<Option<Audience>> {
        audiences::question_audience(self.conn, request)
    }

    /// The browser session with this cookie hash, if it is open and has not expired by `now_ms`.
    pub fn person_session(&self, id_hash: &[u8; 32], now_ms: i64) -> Result<Option<PersonSession>> {
        people::person_session(self.conn, id_hash, now_ms)
    }

    /// Every token, newest first; revoked ones too when `revoked` is set.
    pub fn tokens(&self, revoked: bool) -> Result<Vec<TokenRecord>> {
        tokens::list(self.conn, revoked)
    }

    /// The subject of the signed-in person who asked question `request`, if one did.
    pub fn asking_person(&self, request: RequestId) -> Result<Option<String>> {
        tokens::asking_person(self.conn, request)
    }

    /// The token that asked question `request`, if a token did.
    pub fn asked_by(&self, request: RequestId) -> Result<Option<TokenId>> {
        tokens::asked_by(self.conn, request)
    }

    /// A session.
    pub fn session(&self, id: SessionId) -> Result<Option<SessionRecord>> {
        sessions::get(self.conn, id)
    }

    /// The session an external agent groups its questions under.
    pub fn session_by_external_key(&self, agent: &str, key: &str) -> Result<Option<SessionRecord>> {
        sessions::by_external_key(self.conn, agent, key)
    }

    /// Every session with a status (for recovery at start), oldest first.
    pub fn sessions_with_status(&self, status: SessionStatus) -> Result<Vec<SessionRecord>> {
        sessions::with_status(self.conn, status)
    }

    /// A page of sessions, newest first.
    pub fn sessions(&self, filter: &SessionFilter) -> Result<SessionPage> {
        sessions::list(self.conn, filter)
    }

    /// Sessions waiting for input because one of their sub-agents waits.
    pub fn waiting_parents(&self) -> Result<Vec<SessionRecord>> {
        sessions::waiting_parents(self.conn)
    }

    /// The sessions a session spawned, oldest first.
    pub fn children(&self, id: SessionId) -> Result<Vec<SessionSummary>> {
        sessions::children(self.conn, id)
    }

    /// A session's parents, nearest first.
    pub fn ancestors(&self, id: SessionId) -> Result<Vec<SessionId>> {
        sessions::ancestors(self.conn, id)
    }

    /// A session's whole timeline.
    pub fn timeline(&self, id: SessionId) -> Result<Vec<TimelineEntry>> {
        messages::timeline(self.conn, id)
    }

    /// A question.
    pub fn question(&self, id: RequestId) -> Result<Option<QuestionRecord>> {
        questions::get(self.conn, id)
    }

    /// A question, its session, and whose the session is (`None`: everyone's).
    pub fn question_with_session(
        &self,
        id: RequestId,
    ) -> Result<Option<(QuestionRecord, SessionRecord, Option<Audience>)>> {
        questions::with_session(self.conn, id)
    }

    /// Whether a question exists.
    pub fn question_exists(&self, id: RequestId) -> Result<bool> {
        questions::exists(self.conn, id)
    }

    /// The question a session waits on, if any.
    pub fn pending_question_of(&self, session_id: SessionId) -> Result<Option<QuestionRecord>> {
        questions::pending_of_session(self.conn, session_id)
    }

    /// Every question a session asked, oldest first.
    pub fn questions_of(&self, session_id: SessionId) -> Result<Vec<QuestionRecord>> {
        questions::of_session(self.conn, session_id)
    }

    /// Every pending question, oldest first (the inbox).
    pub fn pending_questions(&self) -> Result<Vec<PendingQuestion>> {
        questions::pending(self.conn)
    }

    /// Every pending question's line in the inbox's list, oldest first.
    pub fn inbox(&self) -> Result<Vec<InboxEntry>> {
        questions::inbox(self.conn)
    }

    /// Questions by status, newest first.
    pub fn questions(
        &self,
        status: Option<QuestionStatus>,
        before_ms: Option<i64>,
        limit: usize,
    ) -> Result<Vec<QuestionRecord>> {
        questions::list(self.conn, status, before_ms, limit)
    }

    /// Pending questions whose deadline is at or before `until_ms` (every deadline with `None`).
    pub fn deadlines(&self, until_ms: Option<i64>) -> Result<Vec<Deadline>> {
        questions::deadlines(self.conn, until_ms)
    }

    /// Up to `limit` events after `seq`.
    pub fn events_after(&self, seq: i64, limit: usize) -> Result<Vec<StoredEvent>> {
        events::after(self.conn, seq, limit)
    }

    /// The newest event's seq (0 when there is none).
    pub fn last_seq(&self) -> Result<i64> {
        events::last_seq(self.conn)
    }

    /// Callbacks due at `now_ms`, oldest first.
    pub fn due_callbacks(&self, now_ms: i64, limit: usize) -> Result<Vec<OutboxEntry>> {
        outbox::due(self.conn, now_ms, None, limit)
    }

    /// Callbacks due at `now_ms`, oldest first, after the page that ended at `after`: a sender
    /// that cannot send the oldest ones yet pages on to the others.
    pub fn due_callbacks_after(&self, now_ms: i64, after: Option<DueCursor>, limit: usize) -> Result<Vec<OutboxEntry>> {
        outbox::due(self.conn, now_ms, after, limit)
    }

    /// When the next callback is due.
    pub fn next_callback_due(&self) -> Result<Option<i64>> {
        outbox::next_due(self.conn)
    }

    /// When the next callback falls due after `now_ms` (those due already are not counted).
    pub fn next_callback_due_after(&self, now_ms: i64) -> Result<Option<i64>> {
        outbox::next_due_after(self.conn, now_ms)
    }

    /// A callback's delivery state and attempts.
    pub fn callback_delivery(&self, idempotency_key: &str) -> Result<Option<(DeliveryState, i64)>> {
        outbox::delivery(self.conn, idempotency_key)
    }

    /// Answering figures as of `now_ms` for questions asked since `since_ms`.
    pub fn metrics(&self, now_ms: i64, since_ms: Option<i64>) -> Result<Metrics> {
        metrics::compute(self.conn, now_ms, since_ms, None)
    }

    /// The figures of the questions a person among `audiences` (`person:<subject>`,
    /// `group:<name>`) sees: everyone's and those addressed to one of them.
    pub fn metrics_seen_by(&self, now_ms: i64, since_ms: Option<i64>, audiences: &[String]) -> Result<Metrics> {
        metrics::compute(self.conn, now_ms, since_ms, Some(audiences))
    }

    /// What the server has on its hands as of `now_ms` (questions and sessions waiting, callbacks
    /// and channel posts not yet sent, people signed in): counts for its operators, cheap to read.
    pub fn workload(&self, now_ms: i64) -> Result<Workload> {
        metrics::workload(self.conn, now_ms)
    }

    /// A question's message on a channel.
    pub fn channel_message(&self, channel: &str, request_id: RequestId) -> Result<Option<ChannelMessage>> {
        channel_messages::get(self.conn, channel, request_id)
    }

    /// What `channel` has to do at `now_ms`: posts in doubt, questions to post within
    /// `scope`, messages to settle (at most `limit` of each), and when more falls due.
    pub fn channel_work(
        &self,
        channel: &str,
        now_ms: i64,
        scope: ChannelScope<'_>,
        limit: usize,
    ) -> Result<ChannelWork> {
        channel_messages::work(self.conn, channel, now_ms, scope, limit)
    }

    /// The person paired with `account` on `channel`.
    pub fn channel_person(&self, channel: &str, account: &str) -> Result<Option<ChannelPerson>> {
        channel_people::by_account(self.conn, channel, account)
    }

    /// The account `subject` paired on `channel`.
    pub fn channel_account(&self, channel: &str, subject: &str) -> Result<Option<ChannelPerson>> {
        channel_people::by_subject(self.conn, channel, subject)
    }

    /// Everyone paired on `channel`, by subject.
    pub fn channel_people(&self, channel: &str) -> Result<Vec<ChannelPerson>> {
        channel_people::all(self.conn, channel)
    }

    /// Everyone paired on any channel.
    pub fn all_channel_people(&self) -> Result<Vec<ChannelPerson>> {
        channel_people::everyone(self.conn)
    }

    /// The device that takes pushes at `endpoint`.
    pub fn push_device(&self, endpoint: &str) -> Result<Option<PushDevice>> {
        push::get(self.conn, endpoint)
    }

    /// Where the push of `request_id` to the device at `endpoint` stands, with the attempts
    /// made.
    pub fn push_state(&self, endpoint: &str, request_id: RequestId) -> Result<Option<(PushState, i64)>> {
        push::state(self.conn, endpoint, request_id)
    }

    /// What devices have to be sent at `now_ms` (questions asked by `asked_by_ms`; at most
    /// `limit` in all), and when more falls due (a younger question comes of age `delay_ms`
    /// after it was asked).
    pub fn push_work(
        &self,
        now_ms: i64,
        asked_by_ms: i64,
        delay_ms: i64,
        limit: usize,
    ) -> Result<(Vec<PushDue>, Option<i64>)> {
        push::work(self.conn, now_ms, asked_by_ms, delay_ms, limit)
    }

    /// Every session open at `now_ms`, as an admin lists them.
    pub fn open_person_sessions(&self, now_ms: i64) -> Result<Vec<ListedSession>> {
        people::open_sessions(self.conn, now_ms)
    }

    /// How many wrong pairing codes came to `channel` at or after `since_ms`: from `account`, or
    /// from every account when `None`.
    pub fn pairing_misses(&self, channel: &str, account: Option<&str>, since_ms: i64) -> Result<i64> {
        pairing_misses::count(self.conn, channel, account, since_ms)
    }

    /// The names people's own messages on `channel` are kept under ("slack:<subject>") that
    /// still have a posted message, whether or not the person is still paired.
    pub fn channel_people_with_messages(&self, channel: &str) -> Result<Vec<String>> {
        channel_messages::people_with_messages(self.conn, channel)
    }

    /// How many messages `channel` has rows for.
    pub fn channel_message_count(&self, channel: &str) -> Result<i64> {
        channel_messages::count(self.conn, channel)
    }

    /// Up to `limit` (1..=[`AUDIT_PAGE_MAX`](crate::AUDIT_PAGE_MAX)) audit rows matching
    /// `filter`, in id order; the last row's id as `after_id` reads the next page.
    pub fn audit(&self, filter: &AuditFilter, limit: usize) -> Result<Vec<AuditRow>> {
        audit::page(self.conn, filter, &AuditShare::Whole, limit)
    }

    /// [`Reader::audit`] within `share`: a signed-in person's part of the trail, or all of it.
    pub fn audit_share(&self, filter: &AuditFilter, share: &AuditShare, limit: usize) -> Result<Vec<AuditRow>> {
        audit::page(self.conn, filter, share, limit)
    }

    /// The audit row of a resolved question.
    pub fn audit_of(&self, request: RequestId) -> Result<Option<AuditRow>> {
        audit::of_question(self.conn, request)
    }

    /// Every rule, newest first; revoked ones too when `revoked` is set.
    pub fn rules(&self, revoked: bool) -> Result<Vec<RuleRecord>> {
        rules::list(self.conn, revoked)
    }

    /// A rule.
    pub fn rule(&self, id: i64) -> Result<Option<RuleRecord>> {
        rules::get(self.conn, id)
    }

    /// Rules to offer: allowed by the person at least `min_allowed` times, with no live rule
    /// and not turned down; most allowed first.
    pub fn rule_offers(&self, min_allowed: u32) -> Result<Vec<RuleOffer>> {
        rules::offers(self.conn, min_allowed)
    }

    /// Who holds the lease on `work` at `now_ms`, if anyone.
    pub fn lease_holder(&self, work: &str, now_ms: i64) -> Result<Option<Lease>> {
        leases::holder(self.conn, work, now_ms)
    }

    /// The leases held at `now_ms` on work whose name starts with `prefix` (`session:`).
    pub fn leases_held(&self, prefix: &str, now_ms: i64) -> Result<Vec<Lease>> {
        leases::held(self.conn, prefix, now_ms)
    }

    /// A setting.
    pub fn setting(&self, key: &str) -> Result<Option<String>> {
        settings::get(self.conn, key)
    }
}
