//! How far the clients have got, for progress lines and for saying which questions a stuck run
//! left where.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Shared by every client and the kill loop.
#[derive(Debug, Default)]
pub struct Progress {
    asked: AtomicUsize,
    acknowledged: AtomicUsize,
    stages: Mutex<BTreeMap<String, String>>,
}

impl Progress {
    /// A question was put (its ask or trigger was accepted).
    pub fn asked(&self) {
        self.asked.fetch_add(1, Ordering::SeqCst);
    }

    /// An answer was acknowledged to its client.
    pub fn acknowledged(&self) {
        self.acknowledged.fetch_add(1, Ordering::SeqCst);
    }

    /// (questions asked, answers acknowledged) so far.
    pub fn figures(&self) -> (usize, usize) {
        (self.asked.load(Ordering::SeqCst), self.acknowledged.load(Ordering::SeqCst))
    }

    /// Where a job is now.
    pub fn stage(&self, marker: &str, stage: impl Into<String>) {
        self.stages.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(marker.to_owned(), stage.into());
    }

    /// A job is done.
    pub fn finished(&self, marker: &str) {
        self.stages.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(marker);
    }

    /// The jobs not done, with where each is.
    pub fn unfinished(&self) -> Vec<String> {
        let stages = self.stages.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        stages.iter().map(|(marker, stage)| format!("{marker}: {stage}")).collect()
    }
}
