//! Events as they happen: what front ends follow once they have drawn a snapshot.

use tokio::sync::broadcast;

use super::handle::Beckon;
use crate::error::Result;
use crate::events::{Subscription, TextDelta};
use crate::runtime::Records;

/// Events as they happen.
#[derive(Debug, Clone, Copy)]
pub struct Events<'a> {
    pub(super) records: &'a Records,
}

impl Beckon {
    /// Events as they happen.
    pub fn events(&self) -> Events<'_> {
        Events { records: &self.rt.records }
    }
}

impl Events<'_> {
    /// The newest event's seq: a snapshot taken now is complete up to it.
    pub async fn last_seq(self) -> Result<i64> {
        self.records.call(|store| store.read().last_seq()).await
    }

    /// Every event after `after_seq`, then live ones, none missed or doubled.
    pub async fn subscribe(self, after_seq: i64) -> Result<Subscription> {
        Subscription::start(self.records.db().clone(), self.records.live_events(), after_seq).await
    }

    /// The assistant's text as it streams (live display only).
    pub fn text_deltas(self) -> broadcast::Receiver<TextDelta> {
        self.records.text_deltas()
    }
}
