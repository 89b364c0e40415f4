//! Shared helpers for the store's tests: ids, sample sessions and questions.

use beckon_core::conversation::{Origin, State};
use beckon_core::{Answer, Answers, Outcome, QuestionRequest, RequestId, SessionId, SessionOrigin};
use beckon_store::{NewQuestion, NewSession, Resolution, Store};
use serde_json::json;
use uuid::Uuid;

pub fn session_id() -> SessionId {
    SessionId::from_uuid(Uuid::now_v7())
}

pub fn request_id() -> RequestId {
    RequestId::from_uuid(Uuid::now_v7())
}

pub fn request() -> QuestionRequest {
    QuestionRequest::parse(&json!({"questions": [
        {"question": "Which style?", "header": "Style", "options": [{"label": "Haiku"}, {"label": "Sonnet"}]},
        {"question": "Which tones?", "header": "Tone", "multiSelect": true, "options": [{"label": "Warm"}, {"label": "Wry"}, {"label": "Dark"}]}
    ]}))
    .unwrap()
}

pub fn answered(style: &str) -> Outcome {
    Outcome::Answered {
        answers: Answers::new(vec![Answer::select([style]), Answer::select(["Warm"])], &request()).unwrap(),
    }
}

pub fn new_session(id: SessionId, agent: &str, at_ms: i64) -> NewSession {
    NewSession {
        id,
        agent: agent.into(),
        origin: SessionOrigin::Chat,
        parent: None,
        external_key: None,
        title: format!("Poem for {agent}"),
        state: State::Idle,
        payload: None,
        at_ms,
    }
}

pub fn new_question(id: RequestId, session_id: SessionId, agent: &str, at_ms: i64) -> NewQuestion {
    NewQuestion {
        id,
        session_id,
        tool_use_id: format!("toolu_{}", id.as_uuid().simple()),
        agent: agent.into(),
        origin: Origin::agent(agent),
        request: request(),
        callback_url: None,
        expires_at_ms: None,
        expiry_policy: None,
        at_ms,
        callbacks: vec![],
    }
}

pub fn resolution(request_id: RequestId, outcome: Outcome, at_ms: i64) -> Resolution {
    Resolution {
        request_id,
        outcome,
        via: Some(beckon_core::AnsweredVia::Window),
        by: None,
        at_ms,
        session_status: None,
        callbacks: vec![],
    }
}

/// A store on a fresh file in a temp dir (kept alive by the returned guard).
pub fn file_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("data").join("beckon.db")).unwrap();
    (dir, store)
}

/// Starts a session and asks one question in it; returns their ids.
pub fn asked(store: &mut Store, agent: &str, at_ms: i64) -> (SessionId, RequestId) {
    let (session, question) = (session_id(), request_id());
    store
        .write(|tx| {
            tx.start_session(&new_session(session, agent, at_ms))?;
            tx.ask(&new_question(question, session, agent, at_ms))
        })
        .unwrap();
    (session, question)
}

/// Where a conformance test's store lives: each test body runs once on each.
#[derive(Debug, Clone, Copy)]
pub enum Backend {
    /// A file in a temporary folder.
    Sqlite,
    /// A database of its own on a PostgreSQL cluster of the test's own.
    Postgres,
}

/// A test's database, kept while it lives: the file's folder or the running cluster.
pub struct Db {
    place: String,
    backend: Backend,
    _dir: Option<tempfile::TempDir>,
    cluster: Option<beckon_store::testing::TestCluster>,
}

impl Backend {
    /// A fresh, empty store, and the database that holds it.
    pub fn store(self) -> (Db, Store) {
        let db = match self {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("data").join("beckon.db");
                Db { place: path.to_str().unwrap().to_owned(), backend: self, _dir: Some(dir), cluster: None }
            }
            Backend::Postgres => {
                let cluster = beckon_store::testing::TestCluster::start(&[]).unwrap();
                let url = cluster.create_database("beckon").unwrap();
                Db { place: url, backend: self, _dir: None, cluster: Some(cluster) }
            }
        };
        let store = db.open();
        (db, store)
    }
}

impl Db {
    /// Another connection to the same database (another writer, another replica).
    pub fn open(&self) -> Store {
        match self.backend {
            Backend::Sqlite => Store::open(&self.place).unwrap(),
            Backend::Postgres => Store::connect(&self.place).unwrap(),
        }
    }

    /// A read-only connection to the same database, beside the writers.
    pub fn open_read_only(&self) -> Store {
        match self.backend {
            Backend::Sqlite => Store::open_read_only(&self.place).unwrap(),
            Backend::Postgres => Store::connect_read_only(&self.place).unwrap(),
        }
    }

    /// The PostgreSQL cluster, when on PostgreSQL.
    pub fn cluster(&self) -> Option<&beckon_store::testing::TestCluster> {
        self.cluster.as_ref()
    }
}

/// Runs each named test body, `fn name(backend: Backend)`, once on SQLite and once on
/// PostgreSQL: `on_sqlite::name` and `on_postgres::name`.
macro_rules! conformance {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite {
            $(#[test]
            fn $name() {
                super::$name($crate::common::Backend::Sqlite)
            })*
        }
        mod on_postgres {
            $(#[test]
            fn $name() {
                super::$name($crate::common::Backend::Postgres)
            })*
        }
    };
}
pub(crate) use conformance;
