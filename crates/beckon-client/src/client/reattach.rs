//! Waiting on a question through a lost connection. A long-poll is held by one Beckon process:
//! one replica of a team server, or one run of the app. When that process dies (killed,
//! restarted, taken out by its load balancer) the connection breaks in the middle of the wait,
//! but the question lives on in the database, and whoever answers it on another replica (or on
//! the same one once it is back) resolves it there. So a waiter does not give up: it re-attaches,
//! asking for the same question id again after a pause, until its caller's own deadline.
//!
//! What is defended against, and how:
//! - Asking twice. Only the wait on an id that exists re-attaches; the ask itself (a `POST`)
//!   is never repeated here, since a second one would be a second question for the person.
//! - Taking a refusal for an outage. A 401, 403 or 404 is Beckon's answer, not a lost way to
//!   it: the wait ends at once with it. Only a connection that could not be made or broke, a
//!   request that timed out, and 502/503/504 (a proxy whose backend is gone, a replica that is
//!   stopping or has lost its database) re-attach.
//! - A crowd coming back at once. Every waiter cut off by the same death would come back in
//!   step; pauses double from [`FIRST_PAUSE`] to [`LONGEST_PAUSE`] and are drawn at random from
//!   the upper half of that, so they spread out.
//! - A Beckon that came back elsewhere. A Beckon on this machine started again writes a new
//!   token (and maybe a new port) to `gateway.json`; the client the wait began with knows only
//!   the old ones. After a lost connection [`Relocating`] looks Beckon up again as it was found
//!   at first (a URL and token given outright find the same address), and proves the server
//!   anew when it is another.
//! - Waiting forever on nothing. A question with a deadline is re-attached to until a little
//!   past it ([`AFTER_DEADLINE`]: Beckon resolves it then, maybe with a default answer worth
//!   having); one without a deadline, like the person's own patience, until the caller stops
//!   waiting (Ctrl-C, the agent ending its hook). An MCP tool call re-attaches only within the
//!   time it waits at all.
//!
//! [`Waiting`] decides, from the results and the time it is given, and reads no clock; the
//! one loop that acts on it, [`wait_on`] (through [`Relocating`]), is what `beckon ask`, every
//! agent's hook and `beckon mcp` wait with.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use beckon_api::views::{QuestionCreated, QuestionView};

use super::{ClientError, ClientResult, GatewayClient, Locator};

/// The pause after a first failure to reach a question.
pub const FIRST_PAUSE: Duration = Duration::from_millis(250);
/// The longest pause between two attempts: a waiter is back within this of Beckon being back.
pub const LONGEST_PAUSE: Duration = Duration::from_secs(5);
/// How long past a question's own deadline its waiter still re-attaches: Beckon resolves it at
/// the deadline (expired, or with its default answer), and the clocks of the two ends differ.
pub const AFTER_DEADLINE: Duration = Duration::from_secs(60);

/// Whether `err`, a long-poll's failure, lost the way to the question (so it is worth asking
/// again) rather than being Beckon's answer.
pub fn lost_the_way(err: &ClientError) -> bool {
    match err {
        // Nothing listens, the request broke or timed out, or `gateway.json` names a process
        // that has ended since (the app is down between two runs).
        ClientError::NotRunning { .. } | ClientError::Transport { .. } | ClientError::Stale { .. } => true,
        // A proxy answers 502 or 504 for a backend that died or is down; Beckon answers 503 while
        // it stops or while its database is away. Anything else is Beckon's own word.
        ClientError::Api { status, .. } => matches!(status, 502..=504),
        ClientError::NoToken { .. }
        | ClientError::Discovery { .. }
        | ClientError::InvalidId(_)
        | ClientError::Impostor { .. }
        | ClientError::TooLarge { .. }
        | ClientError::Unreadable { .. }
        | ClientError::AskUnsure { .. }
        | ClientError::Certificate { .. }
        | ClientError::WaitLost { .. } => false,
    }
}

/// The pause before the next attempt after `failures` failed in a row (1 after the first):
/// [`FIRST_PAUSE`] doubled per failure, at most [`LONGEST_PAUSE`], of which `jitter` (from 0 to
/// 1) picks a point in the upper half.
pub fn pause(failures: u32, jitter: f64) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    let full = FIRST_PAUSE.saturating_mul(1 << doublings).min(LONGEST_PAUSE);
    let jitter = if jitter.is_finite() { jitter.clamp(0.0, 1.0) } else { 0.0 };
    full.mul_f64(0.5 + 0.5 * jitter)
}

/// How long a waiter waits, and how long it re-attaches to the question when the way to it is
/// lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wait {
    /// The longest one long-poll is held.
    pub poll: Duration,
    /// When the wait ends with the question as it then stands, resolved or not; `None`: only
    /// once it is resolved.
    pub ends: Option<Instant>,
    /// Until when a lost connection is re-attached; `None`: as long as the wait lasts. Never
    /// past `ends`.
    pub reattach_until: Option<Instant>,
}

impl Wait {
    /// Up to `wait` from `now`, re-attaching within that time only.
    pub fn at_most(wait: Duration, poll: Duration, now: Instant) -> Wait {
        let ends = now.checked_add(wait);
        Wait { poll, ends, reattach_until: ends }
    }

    /// Until the question is resolved, re-attaching until [`AFTER_DEADLINE`] past its own
    /// deadline as `created` (what `POST /v1/questions` answered) states it, in Unix
    /// milliseconds; with no deadline, for as long as the caller waits. `now_ms` and `now` are
    /// the same moment on the two clocks.
    pub fn until_resolved(created: &QuestionCreated, poll: Duration, now_ms: i64, now: Instant) -> Wait {
        // A deadline too far off for the clock to hold is no limit.
        let reattach_until = created.expires_at.and_then(|expires_at| {
            let left = Duration::from_millis(expires_at.saturating_sub(now_ms).max(0).unsigned_abs());
            now.checked_add(left.saturating_add(AFTER_DEADLINE))
        });
        Wait { poll, ends: None, reattach_until }
    }

    /// Until when a lost connection is re-attached: the earlier of the two limits.
    fn reattach_limit(&self) -> Option<Instant> {
        match (self.ends, self.reattach_until) {
            (Some(ends), Some(until)) => Some(ends.min(until)),
            (one, other) => one.or(other),
        }
    }
}

/// What a waiter tells the person (on stderr, in a log) about the way to the question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// The way was lost; the waiter re-attaches.
    Lost {
        /// The question.
        id: String,
        /// Why, as the failure said it.
        why: String,
    },
    /// The waiter is attached again, after this long.
    Back {
        /// The question.
        id: String,
        /// How long the way was lost.
        after: Duration,
    },
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Notice::Lost { id, why } => {
                write!(f, "lost the connection while waiting on question {id} ({why}); re-attaching to it")
            }
            Notice::Back { id, after } => {
                write!(f, "re-attached to question {id} after {:.1} s", after.as_secs_f64())
            }
        }
    }
}

/// What the waiter does next.
#[derive(Debug)]
pub enum Step {
    /// Long-polls the question again, after this pause.
    Poll {
        /// The pause first (zero: at once).
        after: Duration,
    },
    /// The wait is over: the question as it stands.
    Done(Box<QuestionView>),
    /// The wait is over: why.
    Fail(ClientError),
}

/// One waiter's state: where its wait stands and since when the way is lost, if it is.
#[derive(Debug)]
pub struct Waiting {
    id: String,
    wait: Wait,
    /// Failed attempts in a row.
    failures: u32,
    /// Since when the way to the question is lost.
    lost_since: Option<Instant>,
}

impl Waiting {
    /// Waiting on question `id` as `wait` says.
    pub fn new(id: &str, wait: Wait) -> Waiting {
        Waiting { id: id.to_owned(), wait, failures: 0, lost_since: None }
    }

    /// How long the long-poll made at `now` is held. While the way is lost, not at all: a
    /// plain look says at once whether it is back (a long-poll would say so only when it ends),
    /// and the long-poll follows.
    pub fn poll_length(&self, now: Instant) -> Duration {
        if self.lost_since.is_some() {
            return Duration::ZERO;
        }
        match self.wait.ends {
            Some(ends) => ends.saturating_duration_since(now).min(self.wait.poll),
            None => self.wait.poll,
        }
    }

    /// A long-poll came back at `now` with `polled`: the next step, and what to tell, if
    /// anything. `jitter` (from 0 to 1) spreads the pause.
    pub fn polled(&mut self, polled: ClientResult<QuestionView>, now: Instant, jitter: f64) -> (Step, Option<Notice>) {
        match polled {
            Ok(view) => {
                self.failures = 0;
                let notice = self
                    .lost_since
                    .take()
                    .map(|since| Notice::Back { id: self.id.clone(), after: now.saturating_duration_since(since) });
                let over = !view.is_pending() || self.wait.ends.is_some_and(|ends| now >= ends);
                let step = if over { Step::Done(Box::new(view)) } else { Step::Poll { after: Duration::ZERO } };
                (step, notice)
            }
            Err(err) if !lost_the_way(&err) => (Step::Fail(err), None),
            Err(err) => {
                self.failures = self.failures.saturating_add(1);
                let limit = self.wait.reattach_limit();
                if limit.is_some_and(|limit| now >= limit) {
                    let err = match self.lost_since {
                        // It had been re-attaching: say so, not only the last failure.
                        Some(_) => ClientError::WaitLost { id: self.id.clone(), last: Box::new(err) },
                        None => err,
                    };
                    return (Step::Fail(err), None);
                }
                let notice = match self.lost_since {
                    Some(_) => None,
                    None => {
                        self.lost_since = Some(now);
                        Some(Notice::Lost { id: self.id.clone(), why: err.to_string() })
                    }
                };
                let mut after = pause(self.failures, jitter);
                if let Some(limit) = limit {
                    // One last look at the limit itself, not a pause past it.
                    after = after.min(limit.saturating_duration_since(now));
                }
                (Step::Poll { after }, notice)
            }
        }
    }
}

/// Something that long-polls a question: the gateway's client, or a stand-in in tests.
pub trait LongPoll: Sync {
    /// `GET /v1/questions/{id}`, held up to `wait` until it resolves.
    fn long_poll(&self, id: &str, wait: Duration) -> impl Future<Output = ClientResult<QuestionView>> + Send;
}

impl LongPoll for GatewayClient {
    fn long_poll(&self, id: &str, wait: Duration) -> impl Future<Output = ClientResult<QuestionView>> + Send {
        self.question(id, wait)
    }
}

/// A long-poller that looks Beckon up again after a lost connection, with the locator it was
/// first found by, and keeps the client it has while Beckon is where it was.
#[derive(Debug)]
pub struct Relocating {
    locator: Locator,
    current: Mutex<GatewayClient>,
    /// The last attempt lost the way: look Beckon up before the next.
    lost: AtomicBool,
}

impl Relocating {
    /// Starts with `client`, found by `locator`.
    pub fn new(locator: Locator, client: GatewayClient) -> Relocating {
        Relocating { locator, current: Mutex::new(client), lost: AtomicBool::new(false) }
    }

    /// The client of the Beckon found last (to withdraw the question with, say).
    pub fn client(&self) -> GatewayClient {
        // A panic elsewhere while the lock was held leaves a whole client behind: use it.
        self.current.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Waits on question `id` as `wait` says; see [`wait_on`].
    pub async fn wait_on(&self, id: &str, wait: Wait, tell: impl FnMut(&Notice)) -> ClientResult<QuestionView> {
        wait_on(self, id, wait, tell).await
    }

    /// Looks Beckon up again; a client of it when it is not where it was (it proves itself
    /// before anything else is sent).
    fn relocate(&self) -> ClientResult<GatewayClient> {
        let endpoint = self.locator.locate()?;
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        if current.endpoint != endpoint {
            *current = GatewayClient::connect(endpoint, &current.name)?;
        }
        Ok(current.clone())
    }
}

impl LongPoll for Relocating {
    async fn long_poll(&self, id: &str, wait: Duration) -> ClientResult<QuestionView> {
        let client = if self.lost.load(Ordering::Relaxed) { self.relocate() } else { Ok(self.client()) };
        let polled = match client {
            Ok(client) => client.question(id, wait).await,
            Err(err) => Err(err),
        };
        self.lost.store(matches!(&polled, Err(err) if lost_the_way(err)), Ordering::Relaxed);
        polled
    }
}

/// Waits on question `id` through `poller` as `wait` says, re-attaching when the way to it is
/// lost, and hands every [`Notice`] to `tell`: the question once resolved (or as it stands when
/// the wait ends), or why not.
pub async fn wait_on<P: LongPoll>(
    poller: &P,
    id: &str,
    wait: Wait,
    mut tell: impl FnMut(&Notice),
) -> ClientResult<QuestionView> {
    let mut waiting = Waiting::new(id, wait);
    let mut after = Duration::ZERO;
    loop {
        if !after.is_zero() {
            tokio::time::sleep(after).await;
        }
        let polled = poller.long_poll(id, waiting.poll_length(Instant::now())).await;
        let (step, notice) = waiting.polled(polled, Instant::now(), rand::random());
        if let Some(notice) = notice {
            tell(&notice);
        }
        match step {
            Step::Poll { after: next } => after = next,
            Step::Done(view) => return Ok(*view),
            Step::Fail(err) => return Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use beckon_api::{ErrorBody, ErrorKind, QuestionStatus};
    use serde_json::json;

    const ID: &str = "0190f1d2-0000-7000-8000-00000000beef";
    const POLL: Duration = Duration::from_secs(60);

    fn lost() -> ClientError {
        ClientError::Transport { url: "http://127.0.0.1:7393".into(), detail: "connection closed".into() }
    }

    fn refused(status: u16, kind: ErrorKind) -> ClientError {
        let body = ErrorBody { kind, message: "no".into(), field: None, problems: vec![], winner: None };
        ClientError::Api { status, body: Box::new(body) }
    }

    /// The question as the gateway shows it, as it stands.
    fn view(status: QuestionStatus) -> QuestionView {
        serde_json::from_value(json!({"request_id": ID, "session_id": "0190f1d2-0000-7000-8000-00000000cafe",
            "agent": "cli", "origin": "cli", "status": status, "input": {"questions": [{"question": "Deploy?",
            "options": [{"label": "Yes"}, {"label": "No"}]}]},
            "created_at": 1_000, "answer_url": format!("http://127.0.0.1:7393/v1/questions/{ID}/answer"),
            "deep_link": format!("beckon://question/{ID}")}))
        .unwrap()
    }

    /// What `POST /v1/questions` answers, with its deadline.
    fn created(expires_at: Option<i64>) -> QuestionCreated {
        serde_json::from_value(json!({"request_id": ID, "session_id": "0190f1d2-0000-7000-8000-00000000cafe",
            "status": "pending", "expires_at": expires_at, "answer_url": "", "status_url": "", "deep_link": ""}))
        .unwrap()
    }

    #[test]
    fn only_a_lost_way_re_attaches_never_a_refusal() {
        assert!(lost_the_way(&lost()));
        assert!(lost_the_way(&ClientError::NotRunning { at: "http://127.0.0.1:1".into() }));
        assert!(lost_the_way(&ClientError::Stale { path: "gateway.json".into(), pid: 1 }), "the app is down");
        for status in [502, 503, 504] {
            assert!(lost_the_way(&refused(status, ErrorKind::Unavailable)), "{status}");
        }
        for (status, kind) in [
            (401, ErrorKind::Unauthorized),
            (403, ErrorKind::Forbidden),
            (404, ErrorKind::NotFound),
            (429, ErrorKind::TooManyOpen),
            (500, ErrorKind::Internal),
        ] {
            assert!(!lost_the_way(&refused(status, kind)), "{status}");
        }
        let unsure = ClientError::AskUnsure { url: "u".into(), detail: "reset".into() };
        assert!(!lost_the_way(&unsure), "an ask whose fate is unknown is never repeated");
        assert!(!lost_the_way(&ClientError::TooLarge { url: "u".into(), limit: 1 }));
        assert!(!lost_the_way(&ClientError::Impostor { url: "u".into() }), "a stranger at the address");
    }

    #[test]
    fn pauses_double_to_a_ceiling_and_spread_over_its_upper_half() {
        let full: Vec<Duration> = (1..=8).map(|failures| pause(failures, 1.0)).collect();
        let ms: Vec<u128> = full.iter().map(Duration::as_millis).collect();
        assert_eq!(ms, [250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
        assert_eq!(pause(1, 0.0), Duration::from_millis(125));
        assert_eq!(pause(40, 0.0), Duration::from_millis(2500));
        assert_eq!(pause(u32::MAX, 0.5), Duration::from_millis(3750), "no overflow however long it lasts");
        assert_eq!(pause(0, 1.0), FIRST_PAUSE);
        assert_eq!(pause(3, f64::NAN), Duration::from_millis(500), "a broken jitter is no jitter");
        assert_eq!(pause(3, 7.0), Duration::from_millis(1000));
    }

    #[test]
    fn a_question_s_deadline_bounds_re_attaching_with_a_margin_and_none_leaves_it_open() {
        let now = Instant::now();
        let wait = Wait::until_resolved(&created(Some(1_000_000 + 90_000)), POLL, 1_000_000, now);
        assert_eq!(wait.ends, None, "the wait itself lasts until the question is resolved");
        assert_eq!(wait.reattach_until, Some(now + Duration::from_secs(90) + AFTER_DEADLINE));
        let past = created(Some(1_000_000 - 5_000));
        assert_eq!(Wait::until_resolved(&past, POLL, 1_000_000, now).reattach_until, Some(now + AFTER_DEADLINE));
        assert_eq!(Wait::until_resolved(&created(None), POLL, 1_000_000, now).reattach_until, None);
        let tool_call = Wait::at_most(Duration::from_secs(50), Duration::from_secs(120), now);
        assert_eq!((tool_call.ends, tool_call.reattach_until), (Some(now + Duration::from_secs(50)), tool_call.ends));
    }

    #[test]
    fn a_lost_way_pauses_and_asks_again_and_says_so_once_each_way() {
        let start = Instant::now();
        let mut waiting = Waiting::new(ID, Wait { poll: POLL, ends: None, reattach_until: None });
        assert_eq!(waiting.poll_length(start), POLL);
        let (step, notice) = waiting.polled(Err(lost()), start, 1.0);
        assert!(matches!(step, Step::Poll { after } if after == FIRST_PAUSE), "{step:?}");
        let Some(Notice::Lost { id, why }) = notice else { panic!("{notice:?}") };
        assert_eq!(id, ID);
        assert!(why.contains("connection closed"), "{why}");

        assert_eq!(waiting.poll_length(start), Duration::ZERO, "a plain look while the way is lost");
        let later = start + Duration::from_millis(250);
        let (step, notice) = waiting.polled(Err(ClientError::NotRunning { at: "u".into() }), later, 1.0);
        assert!(matches!(step, Step::Poll { after } if after == FIRST_PAUSE * 2), "{step:?}");
        assert_eq!(notice, None, "one line per outage, not one per attempt");

        let back = start + Duration::from_millis(3_200);
        let (step, notice) = waiting.polled(Ok(view(QuestionStatus::Pending)), back, 0.0);
        assert!(matches!(step, Step::Poll { after } if after.is_zero()), "back, it waits on: {step:?}");
        assert_eq!(notice, Some(Notice::Back { id: ID.into(), after: Duration::from_millis(3_200) }));
        assert_eq!(notice.unwrap().to_string(), format!("re-attached to question {ID} after 3.2 s"));
        assert_eq!(waiting.poll_length(back), POLL, "and long-polls again once back");

        // The next outage starts its pauses from the first again.
        let (step, notice) = waiting.polled(Err(lost()), back, 1.0);
        assert!(matches!(step, Step::Poll { after } if after == FIRST_PAUSE), "{step:?}");
        assert!(notice.is_some());
        let (step, _) = waiting.polled(Ok(view(QuestionStatus::Answered)), back + Duration::from_secs(1), 0.0);
        assert!(matches!(&step, Step::Done(done) if done.status == QuestionStatus::Answered), "{step:?}");
    }

    #[test]
    fn a_refusal_ends_the_wait_at_once() {
        let now = Instant::now();
        let mut waiting = Waiting::new(ID, Wait { poll: POLL, ends: None, reattach_until: None });
        let (step, notice) = waiting.polled(Err(refused(404, ErrorKind::NotFound)), now, 0.5);
        assert!(matches!(step, Step::Fail(ClientError::Api { status: 404, .. })), "{step:?}");
        assert_eq!(notice, None);
    }

    #[test]
    fn re_attaching_stops_at_the_limit_with_a_last_look_there() {
        let start = Instant::now();
        let limit = start + Duration::from_millis(300);
        let mut waiting = Waiting::new(ID, Wait { poll: POLL, ends: None, reattach_until: Some(limit) });
        let (step, _) = waiting.polled(Err(lost()), start + Duration::from_millis(100), 1.0);
        assert!(matches!(step, Step::Poll { after } if after == Duration::from_millis(200)), "clipped: {step:?}");
        let (step, notice) = waiting.polled(Err(lost()), limit, 1.0);
        assert_eq!(notice, None);
        let Step::Fail(err) = step else { panic!("{step:?}") };
        assert!(matches!(&err, ClientError::WaitLost { id, .. } if id == ID), "{err}");
        assert!(err.to_string().contains("connection closed") && err.to_string().contains(ID), "{err}");

        // At the limit with no outage before: the failure as it is.
        let mut fresh = Waiting::new(ID, Wait { poll: POLL, ends: None, reattach_until: Some(start) });
        let (step, _) = fresh.polled(Err(lost()), start, 1.0);
        assert!(matches!(step, Step::Fail(ClientError::Transport { .. })), "{step:?}");
    }

    #[test]
    fn a_wait_with_an_end_returns_the_question_pending_then_and_polls_no_longer_than_left() {
        let start = Instant::now();
        let wait = Wait::at_most(Duration::from_secs(50), Duration::from_secs(120), start);
        let mut waiting = Waiting::new(ID, wait);
        assert_eq!(waiting.poll_length(start), Duration::from_secs(50));
        assert_eq!(waiting.poll_length(start + Duration::from_secs(49)), Duration::from_secs(1));
        assert_eq!(waiting.poll_length(start + Duration::from_secs(51)), Duration::ZERO);
        let (step, _) = waiting.polled(Ok(view(QuestionStatus::Pending)), start + Duration::from_secs(10), 0.0);
        assert!(matches!(step, Step::Poll { .. }), "{step:?}");
        let (step, _) = waiting.polled(Ok(view(QuestionStatus::Pending)), start + Duration::from_secs(50), 0.0);
        assert!(matches!(&step, Step::Done(done) if done.is_pending()), "{step:?}");
    }

    /// Answers each long-poll with the next of its results.
    struct Scripted(std::sync::Mutex<Vec<ClientResult<QuestionView>>>);

    impl LongPoll for Scripted {
        fn long_poll(&self, _id: &str, _wait: Duration) -> impl Future<Output = ClientResult<QuestionView>> + Send {
            let next = self.0.lock().unwrap().remove(0);
            async move { next }
        }
    }

    #[tokio::test]
    async fn the_loop_hands_back_what_the_steps_decide_and_tells_what_they_say() {
        let answered = Scripted(std::sync::Mutex::new(vec![
            Ok(view(QuestionStatus::Pending)),
            Ok(view(QuestionStatus::Answered)),
        ]));
        let wait = Wait { poll: POLL, ends: None, reattach_until: None };
        let mut told = Vec::new();
        let done = wait_on(&answered, ID, wait, |notice| told.push(notice.clone())).await.unwrap();
        assert_eq!((done.status, told.len()), (QuestionStatus::Answered, 0));

        let gone = Scripted(std::sync::Mutex::new(vec![Err(refused(401, ErrorKind::Unauthorized))]));
        let err = wait_on(&gone, ID, wait, |notice| told.push(notice.clone())).await.unwrap_err();
        assert!(matches!(err, ClientError::Api { status: 401, .. }), "{err}");
        assert!(told.is_empty());
    }
}
