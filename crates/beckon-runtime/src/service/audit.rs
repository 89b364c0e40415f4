//! The audit trail: every resolved question and approval, read in pages for the window, or
//! streamed whole for an export (JSONL, CSV) without holding it in memory.

use beckon_store::{AUDIT_PAGE_MAX, AuditFilter, AuditRow, Store};
use tokio::sync::mpsc;

use super::handle::Beckon;
use crate::error::Result;

/// Rows read from the database at a time while streaming.
const STREAM_PAGE: usize = 512;
/// Rows waiting in the stream's channel for the reader: the most an export holds at once.
pub const AUDIT_STREAM_CAPACITY: usize = 256;

impl Beckon {
    /// Up to `limit` (1..=1000) audit rows matching `filter`, in the order they were written;
    /// pass the last row's id as `after_id` for the next page.
    pub async fn audit_page(&self, filter: AuditFilter, limit: usize) -> Result<Vec<AuditRow>> {
        let limit = limit.clamp(1, AUDIT_PAGE_MAX);
        self.rt.db.call(move |store| store.read().audit(&filter, limit)).await
    }

    /// Every audit row matching `filter`, in the order they were written, sent through a
    /// bounded channel as the receiver takes them: the rows are read page by page on a
    /// read-only connection of its own (the store's thread is not held), so an export of a
    /// million rows holds only a few hundred at a time. Rows written while it streams are
    /// included when they match. A failure arrives as the last item; dropping the receiver
    /// stops the reading.
    pub fn audit(&self, filter: AuditFilter) -> mpsc::Receiver<Result<AuditRow>> {
        let (sender, receiver) = mpsc::channel(AUDIT_STREAM_CAPACITY);
        let path = self.rt.config.database_path();
        tokio::task::spawn_blocking(move || {
            let store = match Store::open_read_only(&path) {
                Ok(store) => store,
                Err(err) => {
                    let _ = sender.blocking_send(Err(err.into()));
                    return;
                }
            };
            stream(&store, filter, &sender);
        });
        receiver
    }
}

/// Sends every row matching `filter` from `store` until the rows run out or the receiver goes.
fn stream(store: &Store, mut filter: AuditFilter, sender: &mpsc::Sender<Result<AuditRow>>) {
    loop {
        let page = match store.read().audit(&filter, STREAM_PAGE) {
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
