//! The notices live now: agents outside Beckon that wait for their person where Beckon cannot
//! answer for them. Kept in memory only (a notice is about this moment; after a restart the
//! agent posts again when it waits again), bounded, and each change told to the notifier.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use beckon_core::Notice;

use crate::notifier::Notifier;

/// Most notices kept at once; a new one beyond this replaces the oldest.
pub const MAX_LIVE_NOTICES: usize = 100;

/// The live notices, by key.
pub(crate) struct Notices {
    live: Mutex<BTreeMap<String, Notice>>,
    notifier: Arc<dyn Notifier>,
}

impl std::fmt::Debug for Notices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notices").field("live", &self.lock().len()).finish_non_exhaustive()
    }
}

impl Notices {
    pub(crate) fn new(notifier: Arc<dyn Notifier>) -> Notices {
        Notices { live: Mutex::new(BTreeMap::new()), notifier }
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, Notice>> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Shows `notice`, replacing the one under its key; when full, the oldest goes first.
    pub(crate) fn post(&self, notice: Notice) {
        let evicted = {
            let mut live = self.lock();
            let evicted = if live.len() >= MAX_LIVE_NOTICES && !live.contains_key(&notice.key) {
                let oldest = live.values().min_by_key(|n| n.posted_at_ms).map(|n| n.key.clone());
                oldest.inspect(|key| {
                    live.remove(key);
                })
            } else {
                None
            };
            live.insert(notice.key.clone(), notice.clone());
            evicted
        };
        if let Some(key) = evicted {
            self.notifier.notice_cleared(&key);
        }
        self.notifier.notice_posted(&notice);
    }

    /// Takes the notice under `key` away; says whether there was one.
    pub(crate) fn clear(&self, key: &str) -> bool {
        let removed = self.lock().remove(key).is_some();
        if removed {
            self.notifier.notice_cleared(key);
        }
        removed
    }

    /// Every live notice, oldest first.
    pub(crate) fn list(&self) -> Vec<Notice> {
        let mut notices: Vec<Notice> = self.lock().values().cloned().collect();
        notices.sort_by_key(|n| n.posted_at_ms);
        notices
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notifier::{Recorded, RecordingNotifier};

    fn notice(key: &str, at: i64) -> Notice {
        Notice::new(key, "claude-code".into(), "Claude is waiting for your input".into(), None, at).unwrap()
    }

    #[test]
    fn a_key_holds_one_notice_and_clearing_tells_the_notifier_once() {
        let notifier = Arc::new(RecordingNotifier::default());
        let notices = Notices::new(notifier.clone());
        notices.post(notice("a", 1));
        notices.post(notice("a", 2));
        assert_eq!(notices.list(), vec![notice("a", 2)]);
        assert!(notices.clear("a"));
        assert!(!notices.clear("a"));
        assert_eq!(
            notifier.calls(),
            vec![
                Recorded::NoticePosted(notice("a", 1)),
                Recorded::NoticePosted(notice("a", 2)),
                Recorded::NoticeCleared("a".into())
            ]
        );
    }

    #[test]
    fn past_the_bound_the_oldest_goes() {
        let notifier = Arc::new(RecordingNotifier::default());
        let notices = Notices::new(notifier.clone());
        for n in 0..MAX_LIVE_NOTICES {
            notices.post(notice(&format!("k{n}"), 1_000 - n as i64));
        }
        let last = MAX_LIVE_NOTICES - 1;
        notices.post(notice("new", 2_000));
        let listed = notices.list();
        assert_eq!(listed.len(), MAX_LIVE_NOTICES);
        assert!(!listed.iter().any(|n| n.key == format!("k{last}")), "the oldest was k{last}");
        assert!(notifier.calls().contains(&Recorded::NoticeCleared(format!("k{last}"))));
        assert_eq!(listed.last().map(|n| n.key.as_str()), Some("new"));
    }
}
