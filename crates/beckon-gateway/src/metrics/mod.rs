//! Metrics for a server's operators, in Prometheus's text format: `GET /metrics` on a listener
//! of its own (`beckon serve --metrics-listen ADDR`), off unless asked for and never on the
//! gateway's port. It needs no token — a scraper has none — so it tells only counts and ages:
//! what waits (questions, sessions, callbacks, channel posts), who holds what (connections,
//! long-polls, event streams, signed-in sessions), how requests and sign-ins ended, and this
//! replica's store work; never a question's text, an agent's or a person's name. It belongs on
//! a private address, where only the scraper reaches it.
//!
//! The database's figures are the team's, the same from every replica; the rest are this
//! replica's. A database that does not answer within two seconds leaves its figures out of the
//! scrape and `beckon_ready` at 0, rather than failing the scrape.

mod exposition;
mod tally;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use beckon_runtime::Beckon;
use beckon_runtime::api::LiveEvent;
use beckon_store::Workload;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::connection_limits::ConnectionLimits;
use crate::error::GatewayError;
use crate::state::Shared;
use exposition::{Exposition, Kind, Value};
pub(crate) use tally::{DoorTally, Tally, count_responses};

/// The path a scraper asks.
pub const METRICS_PATH: &str = "/metrics";

/// Scrapes served at once: a scraper or two, and a person with curl.
const MAX_CONNECTIONS: usize = 8;
/// How long the database may take over its figures before a scrape goes without them.
const DATABASE_WITHIN: Duration = Duration::from_secs(2);
/// How long to wait before following the event log again after it failed.
const FOLLOW_AGAIN: Duration = Duration::from_secs(1);

/// The metrics listener, bound before anything is written so that an address that cannot be
/// had stops the start.
#[derive(Debug)]
pub(crate) struct MetricsListener {
    listener: TcpListener,
    addr: SocketAddr,
}

impl MetricsListener {
    /// Binds `addr`, when metrics are asked for.
    pub(crate) async fn bind(addr: Option<SocketAddr>) -> Result<Option<MetricsListener>, GatewayError> {
        let Some(addr) = addr else { return Ok(None) };
        let refused = |err: std::io::Error| GatewayError::MetricsBind { addr, detail: err.to_string() };
        let listener = TcpListener::bind(addr).await.map_err(refused)?;
        // The port it got, when asked for port 0.
        let addr = listener.local_addr().map_err(refused)?;
        Ok(Some(MetricsListener { listener, addr }))
    }

    /// Serves `GET /metrics` until `stop` fires, and follows the event log to count questions;
    /// returns where it listens.
    pub(crate) fn serve(self, shared: Arc<Shared>, limits: ConnectionLimits, stop: CancellationToken) -> SocketAddr {
        let MetricsListener { listener, addr } = self;
        tokio::spawn(follow_questions(shared.beckon.clone(), shared.tally.clone(), stop.clone()));
        let app = Router::new().route(METRICS_PATH, get(scrape)).with_state(shared);
        tokio::spawn(accept(listener, app, limits, stop));
        let url = format!("http://{addr}{METRICS_PATH}");
        tracing::info!(%url, "metrics listening (no token: keep this address private)");
        addr
    }
}

/// Accepts scrapes, a few at a time, each within the gateway's time limits for a request's head.
async fn accept(listener: TcpListener, app: Router, limits: ConnectionLimits, stop: CancellationToken) {
    let places = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let closing = CancellationToken::new();
    loop {
        let accepted = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(err) => {
                tracing::warn!(%err, "the metrics listener cannot accept a connection");
                tokio::time::sleep(crate::serve::ACCEPT_PAUSE).await;
                continue;
            }
        };
        // One more than the places is closed at once (dropped with `stream`).
        let Ok(place) = places.clone().try_acquire_owned() else { continue };
        let service = TowerToHyperService::new(app.clone());
        let closing = closing.clone();
        tokio::spawn(async move {
            crate::serve::answer(stream, service, limits, closing).await;
            drop(place);
        });
    }
    closing.cancel();
}

/// `GET /metrics`.
async fn scrape(State(shared): State<Arc<Shared>>) -> Response {
    let text = render(&Snapshot::gather(&shared).await);
    (StatusCode::OK, [(header::CONTENT_TYPE, exposition::CONTENT_TYPE)], text).into_response()
}

/// Counts the questions asked and resolved, as the event log shows them, from the event current
/// when it starts until `stop` fires. The log is the whole team's, so every replica counts every
/// question, wherever it was asked.
async fn follow_questions(beckon: Beckon, tally: Arc<Tally>, stop: CancellationToken) {
    let mut after: Option<i64> = None;
    loop {
        let subscribed = async {
            let from = match after {
                Some(seq) => seq,
                None => beckon.events().last_seq().await?,
            };
            beckon.events().subscribe(from).await
        };
        let subscribed = tokio::select! {
            () = stop.cancelled() => return,
            subscribed = subscribed => subscribed,
        };
        match subscribed {
            Ok(mut subscription) => loop {
                let next = tokio::select! {
                    () = stop.cancelled() => return,
                    next = subscription.next() => next,
                };
                // Following again starts after the last event the subscription took, so none is
                // counted twice (one it took just as the store failed goes uncounted).
                after = Some(subscription.last_seq());
                match next {
                    Ok(event) => count(&tally, &event),
                    Err(beckon_runtime::Error::ShuttingDown) => return,
                    Err(err) => {
                        tracing::warn!(%err, "metrics: cannot follow the event log; trying again");
                        break;
                    }
                }
            },
            Err(beckon_runtime::Error::ShuttingDown) => return,
            Err(err) => tracing::warn!(%err, "metrics: cannot follow the event log; trying again"),
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(FOLLOW_AGAIN) => {}
        }
    }
}

/// Counts what `event` tells of questions.
fn count(tally: &Tally, event: &LiveEvent) {
    match event {
        LiveEvent::QuestionPending { .. } => tally.asked(),
        LiveEvent::QuestionResolved { status, .. } => tally.resolved(*status),
        LiveEvent::SessionStarted { .. }
        | LiveEvent::SessionStatus { .. }
        | LiveEvent::MessageAppended { .. }
        | LiveEvent::SessionResumed { .. }
        | LiveEvent::SessionDeleted { .. } => {}
    }
}

/// One door's figures.
#[derive(Debug, Clone, Copy, PartialEq)]
struct DoorFigures {
    /// The `door` label.
    door: &'static str,
    open: u64,
    accepted: u64,
    refused: u64,
    max: usize,
}

/// Everything one scrape reports, read at once and then written out.
#[derive(Debug, Clone, PartialEq)]
struct Snapshot {
    version: &'static str,
    started_at_s: f64,
    ready: bool,
    /// The database's figures and the time they were read at (Unix ms); `None` when it did
    /// not answer in time.
    workload: Option<(Workload, i64)>,
    doors: [DoorFigures; 2],
    long_polls: (usize, usize),
    event_streams: (usize, usize),
    responses: [u64; 5],
    sign_ins: (u64, u64),
    questions: (u64, [u64; 4]),
    store_jobs: u64,
    store_commits: Option<u64>,
}

impl Snapshot {
    async fn gather(shared: &Shared) -> Snapshot {
        let beckon = &shared.beckon;
        let (ready, workload, commits) = tokio::join!(
            tokio::time::timeout(DATABASE_WITHIN, beckon.health().ready()),
            tokio::time::timeout(DATABASE_WITHIN, beckon.health().workload()),
            tokio::time::timeout(DATABASE_WITHIN, beckon.health().commits())
        );
        let tally = &shared.tally;
        let door = |door: &'static str, counts: &DoorTally| {
            let (open, accepted, refused) = counts.read();
            DoorFigures { door, open, accepted, refused, max: counts.max() }
        };
        Snapshot {
            version: env!("CARGO_PKG_VERSION"),
            started_at_s: tally.started_at_s(),
            ready: ready.unwrap_or(false),
            workload: workload.ok().and_then(Result::ok).map(|workload| (workload, beckon.now_ms())),
            doors: [door("tcp", &tally.tcp), door("socket", &tally.socket)],
            long_polls: (shared.long_polls.held(), shared.long_polls.max()),
            event_streams: (shared.event_streams.held(), shared.event_streams.max()),
            responses: tally.responses(),
            sign_ins: tally.sign_ins(),
            questions: tally.questions(),
            store_jobs: beckon.health().jobs(),
            store_commits: commits.ok().and_then(Result::ok),
        }
    }
}

/// Seconds from `from_ms` to `now_ms`, none below zero.
fn age_s(now_ms: i64, from_ms: Option<i64>) -> f64 {
    from_ms.map_or(0.0, |from| (now_ms - from).max(0) as f64 / 1000.0)
}

/// Writes `snapshot` in the text format.
fn render(snapshot: &Snapshot) -> String {
    use Kind::{Counter, Gauge};
    let mut out = Exposition::default();
    out.family(
        "beckon_build_info",
        Gauge,
        "The version this replica runs (always 1).",
        [(&[("version", snapshot.version)][..], Value::Whole(1))],
    );
    out.single(
        "beckon_start_time_seconds",
        Gauge,
        "When this replica started serving, in seconds since the Unix epoch.",
        snapshot.started_at_s,
    );
    out.single(
        "beckon_ready",
        Gauge,
        "1 while this replica's database answers and holds the schema it knows (what /readyz says), else 0.",
        snapshot.ready,
    );
    if let Some((workload, now_ms)) = &snapshot.workload {
        let w = workload;
        out.single(
            "beckon_questions_pending",
            Gauge,
            "Questions waiting for a person, the whole team's.",
            w.pending_questions,
        );
        out.single(
            "beckon_oldest_pending_question_age_seconds",
            Gauge,
            "How long the oldest waiting question has waited (0 when none waits).",
            age_s(*now_ms, w.oldest_pending_at_ms),
        );
        out.family(
            "beckon_sessions_active",
            Gauge,
            "Sessions running or waiting for a person, the whole team's.",
            [
                (&[("status", "running")][..], Value::Whole(w.running_sessions)),
                (&[("status", "waiting_for_input")][..], Value::Whole(w.waiting_sessions)),
            ],
        );
        out.single(
            "beckon_callbacks_pending",
            Gauge,
            "Callbacks in the outbox still to be delivered (due, or waiting to be retried).",
            w.callbacks_pending,
        );
        out.single(
            "beckon_callbacks_overdue_seconds",
            Gauge,
            "How long the earliest callback due has waited past its time (0 when deliveries keep up).",
            age_s(*now_ms, w.earliest_callback_due_ms),
        );
        out.single(
            "beckon_channel_posts_unsent",
            Gauge,
            "Slack and Telegram posts begun and not yet sent (being sent, or waiting to be tried again).",
            w.channel_posts_unsent,
        );
        out.family(
            "beckon_signed_in_sessions",
            Gauge,
            "Unexpired sign-ins: browsers, and desktop apps connected as a person.",
            [
                (&[("kind", "browser")][..], Value::Whole(w.browser_sessions)),
                (&[("kind", "app")][..], Value::Whole(w.app_sessions)),
            ],
        );
    }
    let (asked, resolved) = snapshot.questions;
    out.single(
        "beckon_questions_asked_total",
        Counter,
        "Questions that began waiting since this replica started, the whole team's (each replica follows every question).",
        asked,
    );
    let statuses: Vec<[(&str, &str); 1]> =
        tally::RESOLUTIONS.iter().map(|status| [("status", status.as_str())]).collect();
    out.family(
        "beckon_questions_resolved_total",
        Counter,
        "Questions resolved since this replica started, the whole team's, by how they ended.",
        statuses.iter().zip(resolved).map(|(labels, n)| (&labels[..], Value::Whole(n))),
    );
    let doors: Vec<[(&str, &str); 1]> = snapshot.doors.iter().map(|door| [("door", door.door)]).collect();
    let per_door = |figure: fn(&DoorFigures) -> u64| {
        doors.iter().zip(&snapshot.doors).map(move |(labels, door)| (&labels[..], Value::Whole(figure(door))))
    };
    out.family(
        "beckon_connections_open",
        Gauge,
        "Connections open now, at the TCP port and at the private socket.",
        per_door(|door| door.open),
    );
    out.family(
        "beckon_connections_limit",
        Gauge,
        "Connections each door holds at most (--max-connections for the TCP port).",
        per_door(|door| door.max as u64),
    );
    out.family("beckon_connections_accepted_total", Counter, "Connections accepted.", per_door(|door| door.accepted));
    out.family(
        "beckon_connections_refused_total",
        Counter,
        "Connections closed as soon as they were accepted: the door was full, or their address held its share.",
        per_door(|door| door.refused),
    );
    out.single("beckon_long_polls_open", Gauge, "Agents' long-polls (?wait=) held now.", snapshot.long_polls.0);
    out.single("beckon_long_polls_limit", Gauge, "Long-polls held at most (--max-long-polls).", snapshot.long_polls.1);
    out.single("beckon_event_streams_open", Gauge, "Event streams (/v1/events) open now.", snapshot.event_streams.0);
    out.single(
        "beckon_event_streams_limit",
        Gauge,
        "Event streams open at most (--max-event-streams).",
        snapshot.event_streams.1,
    );
    let classes: Vec<[(&str, &str); 1]> = tally::RESPONSE_CLASSES.iter().map(|class| [("class", *class)]).collect();
    out.family(
        "beckon_http_responses_total",
        Counter,
        "Responses the gateway gave, by status class (refusals included).",
        classes.iter().zip(snapshot.responses).map(|(labels, n)| (&labels[..], Value::Whole(n))),
    );
    out.family(
        "beckon_sign_ins_total",
        Counter,
        "Sign-ins through the identity provider that came back to this replica, by how they ended.",
        [
            (&[("outcome", "completed")][..], Value::Whole(snapshot.sign_ins.0)),
            (&[("outcome", "refused")][..], Value::Whole(snapshot.sign_ins.1)),
        ],
    );
    out.single(
        "beckon_store_jobs_total",
        Counter,
        "Jobs (reads and writes) this replica gave its store.",
        snapshot.store_jobs,
    );
    if let Some(commits) = snapshot.store_commits {
        out.single(
            "beckon_store_commits_total",
            Counter,
            "Write transactions this replica's store committed, each durable before it was acknowledged.",
            commits,
        );
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot() -> Snapshot {
        Snapshot {
            version: "1.2.3",
            started_at_s: 1_700_000_000.5,
            ready: true,
            workload: Some((
                Workload {
                    pending_questions: 2,
                    oldest_pending_at_ms: Some(10_000),
                    running_sessions: 1,
                    waiting_sessions: 2,
                    callbacks_pending: 3,
                    earliest_callback_due_ms: Some(70_000),
                    channel_posts_unsent: 1,
                    browser_sessions: 4,
                    app_sessions: 5,
                },
                60_000,
            )),
            doors: [
                DoorFigures { door: "tcp", open: 3, accepted: 40, refused: 1, max: 2048 },
                DoorFigures { door: "socket", open: 0, accepted: 2, refused: 0, max: 128 },
            ],
            long_polls: (2, 1200),
            event_streams: (1, 600),
            responses: [0, 30, 2, 5, 1],
            sign_ins: (6, 1),
            questions: (7, [3, 1, 1, 0]),
            store_jobs: 99,
            store_commits: Some(12),
        }
    }

    /// The sample lines of the text, without comments.
    fn samples(text: &str) -> Vec<&str> {
        text.lines().filter(|line| !line.starts_with('#')).collect()
    }

    #[test]
    fn every_figure_is_a_sample_of_its_family() {
        let text = render(&snapshot());
        for line in [
            "beckon_build_info{version=\"1.2.3\"} 1",
            "beckon_start_time_seconds 1700000000.5",
            "beckon_ready 1",
            "beckon_questions_pending 2",
            "beckon_oldest_pending_question_age_seconds 50",
            "beckon_sessions_active{status=\"running\"} 1",
            "beckon_sessions_active{status=\"waiting_for_input\"} 2",
            "beckon_callbacks_pending 3",
            // Due in the future: not overdue.
            "beckon_callbacks_overdue_seconds 0",
            "beckon_channel_posts_unsent 1",
            "beckon_signed_in_sessions{kind=\"browser\"} 4",
            "beckon_signed_in_sessions{kind=\"app\"} 5",
            "beckon_questions_asked_total 7",
            "beckon_questions_resolved_total{status=\"answered\"} 3",
            "beckon_questions_resolved_total{status=\"declined\"} 1",
            "beckon_questions_resolved_total{status=\"expired\"} 1",
            "beckon_questions_resolved_total{status=\"cancelled\"} 0",
            "beckon_connections_open{door=\"tcp\"} 3",
            "beckon_connections_open{door=\"socket\"} 0",
            "beckon_connections_limit{door=\"tcp\"} 2048",
            "beckon_connections_accepted_total{door=\"tcp\"} 40",
            "beckon_connections_refused_total{door=\"tcp\"} 1",
            "beckon_long_polls_open 2",
            "beckon_long_polls_limit 1200",
            "beckon_event_streams_open 1",
            "beckon_event_streams_limit 600",
            "beckon_http_responses_total{class=\"2xx\"} 30",
            "beckon_http_responses_total{class=\"5xx\"} 1",
            "beckon_sign_ins_total{outcome=\"completed\"} 6",
            "beckon_sign_ins_total{outcome=\"refused\"} 1",
            "beckon_store_jobs_total 99",
            "beckon_store_commits_total 12",
        ] {
            assert!(samples(&text).contains(&line), "{line} is missing from:\n{text}");
        }
    }

    #[test]
    fn each_family_is_declared_once_before_its_samples_and_named_as_prometheus_asks() {
        let text = render(&snapshot());
        let mut declared: Vec<(String, String)> = Vec::new();
        let mut helped: Vec<String> = Vec::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# HELP ") {
                let (name, help) = rest.split_once(' ').unwrap();
                assert!(!help.trim().is_empty(), "{name} has no help");
                assert!(!helped.contains(&name.to_owned()), "{name} is helped twice");
                helped.push(name.to_owned());
            } else if let Some(rest) = line.strip_prefix("# TYPE ") {
                let (name, kind) = rest.split_once(' ').unwrap();
                assert_eq!(helped.last().map(String::as_str), Some(name), "TYPE follows its HELP");
                assert!(declared.iter().all(|(known, _)| known != name), "{name} is declared twice");
                declared.push((name.to_owned(), kind.to_owned()));
            } else {
                let name = line.split(['{', ' ']).next().unwrap();
                let (family, kind) = declared.last().unwrap();
                assert_eq!(name, family, "a sample follows its own family's declaration");
                assert!(
                    name.starts_with("beckon_")
                        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                    "{name}"
                );
                assert_eq!(kind == "counter", name.ends_with("_total"), "{name}: only counters end in _total");
                let value = line.rsplit(' ').next().unwrap();
                assert!(value.parse::<f64>().is_ok(), "{line}");
            }
        }
        assert!(declared.len() > 20, "{text}");
    }

    #[test]
    fn without_the_database_the_scrape_says_so_and_keeps_this_replicas_figures() {
        let snapshot = Snapshot { ready: false, workload: None, store_commits: None, ..snapshot() };
        let text = render(&snapshot);
        assert!(samples(&text).contains(&"beckon_ready 0"), "{text}");
        assert!(!text.contains("beckon_questions_pending"), "{text}");
        assert!(!text.contains("beckon_store_commits_total"), "{text}");
        assert!(samples(&text).contains(&"beckon_connections_open{door=\"tcp\"} 3"), "{text}");
    }

    #[test]
    fn ages_count_up_from_the_past_only() {
        assert_eq!(age_s(5_000, Some(2_500)), 2.5);
        assert_eq!(age_s(5_000, Some(9_000)), 0.0);
        assert_eq!(age_s(5_000, None), 0.0);
    }
}
