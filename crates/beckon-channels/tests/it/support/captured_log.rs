//! Everything the program logs, captured: a `tracing` subscriber that keeps every event and
//! every span's fields at every level from every crate, as text, so a test can look for what
//! must never be logged.

use std::fmt::{self, Write as _};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// The captured log: one line per event or span record.
#[derive(Debug, Clone, Default)]
pub struct CapturedLog(Arc<Mutex<String>>);

impl CapturedLog {
    /// Captures everything logged anywhere in this process from now on (once per process).
    pub fn install() -> CapturedLog {
        let log = CapturedLog::default();
        let subscriber = Capture { log: log.clone(), next_span: AtomicU64::new(1) };
        tracing::subscriber::set_global_default(subscriber).expect("one global subscriber per test process");
        log
    }

    /// The whole log so far.
    pub fn text(&self) -> String {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn push(&self, metadata: &Metadata<'_>, fields: &str) {
        let mut log = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = writeln!(log, "{} {}:{}", metadata.level(), metadata.target(), fields);
    }
}

struct Capture {
    log: CapturedLog,
    next_span: AtomicU64,
}

/// Writes each field as ` name=value`, the message too.
struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let _ = write!(self.0, " {}={value:?}", field.name());
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        let _ = write!(self.0, " {}={value}", field.name());
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut fields = Fields(String::new());
        span.record(&mut fields);
        self.log.push(span.metadata(), &fields.0);
        Id::from_u64(self.next_span.fetch_add(1, Ordering::Relaxed))
    }

    fn record(&self, _: &Id, values: &Record<'_>) {
        let mut fields = Fields(String::new());
        values.record(&mut fields);
        let mut log = self.log.0.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = writeln!(log, "span record:{}", fields.0);
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        self.log.push(event.metadata(), &fields.0);
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}
