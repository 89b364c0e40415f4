//! The audit trail: every resolved question and approval, read in pages for the window, or
//! streamed for an export (JSONL, CSV) without holding it in memory — whole, or one signed-in
//! person's share on a team server ([`AuditShare`]).

use std::path::Path;

use beckon_store::{AUDIT_PAGE_MAX, AuditFilter, AuditRow, AuditShare, Store};
use tokio::sync::mpsc;

use super::handle::Beckon;
use crate::config::RuntimeConfig;
use crate::error::Result;
use crate::runtime::Records;

/// Rows read from the database at a time while streaming.
const STREAM_PAGE: usize = 512;
/// Rows waiting in the stream's channel for the reader: the most an export holds at once.
pub const AUDIT_STREAM_CAPACITY: usize = 256;

/// The audit trail: pages of it, and exports streamed from a connection of their own.
#[derive(Debug, Clone, Copy)]
pub struct Audit<'a> {
    records: &'a Records,
    /// Where the database is, for an export's own read-only connection.
    config: &'a RuntimeConfig,
}

impl Beckon {
    /// The audit trail.
    pub fn audit(&self) -> Audit<'_> {
        Audit { records: &self.rt.records, config: &self.rt.config }
    }
}

impl Audit<'_> {
    /// Up to `limit` (1..=1000) audit rows matching `filter`, in the order they were written;
    /// pass the last row's id as `after_id` for the next page.
    pub async fn page(self, filter: AuditFilter, limit: usize) -> Result<Vec<AuditRow>> {
        let limit = limit.clamp(1, AUDIT_PAGE_MAX);
        self.records.call(move |store| store.read().audit(&filter, limit)).await
    }

    /// Every audit row matching `filter`: [`Audit::export_share`] of the whole trail.
    pub fn export(self, filter: AuditFilter) -> mpsc::Receiver<Result<AuditRow>> {
        self.export_share(filter, AuditShare::Whole)
    }

    /// Every audit row of `share` matching `filter`, in the order they were written, sent
    /// through a bounded channel as the receiver takes them: the rows are read page by page on
    /// a read-only connection of its own to the database this runtime runs on (the data folder's
    /// file, or a team server's PostgreSQL), so the store's thread is not held and an export of
    /// a million rows holds only a few hundred at a time. Rows written while it streams are
    /// included when they match — on PostgreSQL only those numbered after the last page read, as
    /// ids there are taken before commit. A failure arrives as the last item; dropping the
    /// receiver stops the reading.
    pub fn export_share(self, filter: AuditFilter, share: AuditShare) -> mpsc::Receiver<Result<AuditRow>> {
        let (sender, receiver) = mpsc::channel(AUDIT_STREAM_CAPACITY);
        let (url, path) = (self.config.database_url.clone(), self.config.database_path());
        tokio::task::spawn_blocking(move || {
            let store = match reader(url.as_deref(), &path) {
                Ok(store) => store,
                Err(err) => {
                    tracing::warn!(%err, "the audit export cannot reach the database");
                    let _ = sender.blocking_send(Err(err.into()));
                    return;
                }
            };
            stream(&store, filter, &share, &sender);
        });
        receiver
    }
}

/// A read-only connection to the database the runtime runs on: a team server's PostgreSQL at
/// `url` when there is one (its replicas keep no rows in their data folders), else the data
/// folder's file at `path`.
fn reader(url: Option<&str>, path: &Path) -> beckon_store::Result<Store> {
    match url {
        Some(url) => Store::connect_read_only(url),
        None => Store::open_read_only(path),
    }
}

/// Sends every row of `share` matching `filter` from `store` until the rows run out or the
/// receiver goes.
fn stream(store: &Store, mut filter: AuditFilter, share: &AuditShare, sender: &mpsc::Sender<Result<AuditRow>>) {
    loop {
        let page = match store.read().audit_share(&filter, share, STREAM_PAGE) {
            Ok(page) => page,
            Err(err) => {
                let _ = sender.blocking_send(Err(err.into()));
                return;
            }
        };
        let Some(last) = page.last() else { return };
        filter.after_id = Some(last.id);
        for row in page {
            if sender.blocking_send(Ok(row)).is_err() {
                return;
            }
        }
    }
}
