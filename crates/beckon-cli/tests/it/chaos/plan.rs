//! What a chaos run does, fixed up front from its size and seed: how many questions of which
//! kind, the answer each client will give, how long each client dawdles, and how many kills.

use std::fmt;
use std::ops::Range;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The environment variable that picks the size: `full`, or unset for the short form.
pub const SIZE_VAR: &str = "BECKON_CHAOS";
/// The environment variable that replays a run's random choices.
pub const SEED_VAR: &str = "BECKON_CHAOS_SEED";

/// The options every question offers; clients answer with one of them.
pub const LABELS: [&str; 3] = ["Stable", "Beta", "Nightly"];

/// How big a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Every push: a few hundred questions, a handful of kills.
    Short,
    /// On demand: a thousand questions, dozens of kills.
    Full,
}

/// One question a client drives from ask to acknowledged answer.
#[derive(Debug, Clone)]
pub struct Job {
    /// Its place in the plan, which also names it.
    pub index: usize,
    /// How it is asked.
    pub kind: JobKind,
    /// The option its client answers with.
    pub label: &'static str,
    /// How long the client waits before asking.
    pub before_asking: Duration,
    /// How long the "person" takes to answer once the question is pending.
    pub before_answering: Duration,
}

/// How a job's question comes to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// `POST /v1/questions` from an external agent, optionally with a callback URL.
    External {
        /// Whether the question carries the test's callback receiver URL.
        callback: bool,
    },
    /// A scripted agent's session started by `POST /v1/agents/{name}/trigger`.
    InApp,
    /// `POST /v1/questions` with a deadline of [`EXPIRES_AFTER_SECONDS`] that nobody answers:
    /// it must expire exactly once, whichever server is up when it falls due.
    Expiring,
}

/// How long an expiring job's question waits for an answer: well past a restart, so a client
/// that lost its ask finds the question still pending.
pub const EXPIRES_AFTER_SECONDS: u64 = 3;

/// What an expiring job's record says it ended with, in place of an answer's label.
pub const EXPIRED: &str = "expired";

impl Job {
    /// The job's name, also written into its question so that it can be found again: `ext-0042`
    /// or `app-0043`.
    pub fn marker(&self) -> String {
        match self.kind {
            JobKind::External { .. } => format!("ext-{:04}", self.index),
            JobKind::InApp => format!("app-{:04}", self.index),
            JobKind::Expiring => format!("exp-{:04}", self.index),
        }
    }

    /// Whether its question carries a callback URL.
    pub fn has_callback(&self) -> bool {
        matches!(self.kind, JobKind::External { callback: true })
    }
}

/// The marker (`ext-0042`, `app-0043`, `exp-0045`) a question's text or a payload carries, if any.
pub fn marker_in(text: &str) -> Option<String> {
    ["ext-", "app-", "exp-"].iter().find_map(|prefix| {
        let at = text.find(prefix)?;
        let digits = text.get(at + prefix.len()..at + prefix.len() + 4)?;
        digits.chars().all(|c| c.is_ascii_digit()).then(|| format!("{prefix}{digits}"))
    })
}

/// A whole run.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Short or full.
    pub form: Form,
    /// The seed every random choice comes from.
    pub seed: u64,
    /// The questions, in the order clients take them.
    pub jobs: Vec<Job>,
    /// Clients working at once, each with its own `X-Beckon-Client` name.
    pub clients: usize,
    /// The fewest kills a run makes.
    pub min_kills: usize,
    /// How long the server runs before most kills (a quarter come sooner, mid-recovery).
    pub uptime: Range<u64>,
    /// How long the work may take before the run is declared stuck.
    pub patience: Duration,
}

impl Plan {
    /// The plan the environment asks for. An unknown size is an error, never a skip.
    pub fn from_env() -> Plan {
        let form = match std::env::var(SIZE_VAR).unwrap_or_default().trim() {
            "" | "short" => Form::Short,
            "full" => Form::Full,
            other => panic!("{SIZE_VAR}={other:?} is not a size: use \"full\", or leave it unset for the short form"),
        };
        let seed = match std::env::var(SEED_VAR) {
            Ok(text) => text.trim().parse().unwrap_or_else(|_| panic!("{SEED_VAR}={text:?} is not a number")),
            Err(_) => rand::random(),
        };
        Plan::new(form, seed)
    }

    /// The plan for a size and seed.
    pub fn new(form: Form, seed: u64) -> Plan {
        let (questions, clients, min_kills, patience) = match form {
            Form::Short => (200, 8, 5, Duration::from_secs(120)),
            Form::Full => (1000, 12, 30, Duration::from_secs(600)),
        };
        let mut rng = StdRng::seed_from_u64(seed);
        let jobs = (0..questions)
            .map(|index| Job {
                index,
                kind: match (index % 4, index % 8) {
                    (0, _) => JobKind::External { callback: true },
                    (1, 5) => JobKind::Expiring,
                    (1, _) => JobKind::External { callback: false },
                    _ => JobKind::InApp,
                },
                label: LABELS[rng.random_range(0..LABELS.len())],
                before_asking: Duration::from_millis(rng.random_range(0..200)),
                before_answering: Duration::from_millis(rng.random_range(50..450)),
            })
            .collect();
        Plan { form, seed, jobs, clients, min_kills, uptime: 300..1500, patience }
    }

    /// Jobs of each kind: (external with a callback, external without, in-app, expiring).
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let count = |kind: JobKind| self.jobs.iter().filter(|job| job.kind == kind).count();
        (
            count(JobKind::External { callback: true }),
            count(JobKind::External { callback: false }),
            count(JobKind::InApp),
            count(JobKind::Expiring),
        )
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (with_callback, without, in_app, expiring) = self.counts();
        write!(
            f,
            "chaos plan: {:?} form, seed {} (replay with {SEED_VAR}={}), {} questions ({} external with a callback, {} external without, {} in-app, {} left to expire), {} clients, at least {} kills",
            self.form,
            self.seed,
            self.seed,
            self.jobs.len(),
            with_callback,
            without,
            in_app,
            expiring,
            self.clients,
            self.min_kills
        )
    }
}
