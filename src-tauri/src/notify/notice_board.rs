//! Notices of agents waiting at their own prompts, as notifications — decided without I/O.
//!
//! Any program holding the gateway's token can post notices, as fast as the gateway lets it
//! write. Shown one by one they would bury the questions and approvals the person can act on,
//! so:
//! - More than [`BURST_LIMIT`] new notices within [`BURST_WINDOW_MS`] become one "N agents
//!   wait" notification, as bursts of questions do; it stays until the last of them goes.
//! - A notice posted again and again under one key changes its notification at most once per
//!   [`KEY_REFRESH_MS`], and the summary's count at most once per [`SUMMARY_REFRESH_MS`]; what
//!   changed in between is shown as it stands once the time has passed (at the next notice,
//!   or at the worker's next tick).
//!
//! Time comes in with the calls (a notice's `posted_at_ms`, the tick's `now_ms`); nothing here
//! reads a clock.

use std::collections::{HashMap, VecDeque};

use beckon_core::Notice;

use super::burst::{BURST_LIMIT, BURST_WINDOW_MS};
use super::command::{Command, Key, NoticeSlot, Show};
use beckon_core::notification::cut;

/// The least time between two changes of one notice's notification.
pub const KEY_REFRESH_MS: i64 = 2_000;
/// The least time between two changes of the summary.
pub const SUMMARY_REFRESH_MS: i64 = BURST_WINDOW_MS;
/// The longest notice text shown, in characters.
const BODY_MAX_CHARS: usize = 240;
/// How many waiting agents the summary names.
const SUMMARY_NAMES: usize = 3;

/// What the person sees for one notification, and since when.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    show: Show,
    at_ms: i64,
}

#[derive(Debug, Clone)]
struct Live {
    notice: Notice,
    number: u32,
    /// Shown on its own (not while the summary stands for it).
    seen: Option<Seen>,
}

/// The notices heard, and what is shown for them.
#[derive(Debug, Default)]
pub struct NoticeBoard {
    live: HashMap<String, Live>,
    /// When new keys arrived, within the burst window.
    arrivals: VecDeque<i64>,
    next_number: u32,
    /// The summary, while many wait.
    summary: Option<Option<Seen>>,
    /// The latest time heard.
    now_ms: i64,
}

/// The notification for one agent waiting at its own prompt: who, where, and for what.
pub fn for_notice(notice: &Notice, number: u32) -> Show {
    Show {
        key: Key::Notice(NoticeSlot::One(number)),
        summary: cut(&notice.title(), 80),
        body: cut(&notice.message, BODY_MAX_CHARS),
        buttons: Vec::new(),
        opens: false,
    }
}

impl NoticeBoard {
    /// An agent waits (again) under `notice.key`, as of `notice.posted_at_ms`.
    pub fn post(&mut self, notice: &Notice) -> Vec<Command> {
        self.now_ms = self.now_ms.max(notice.posted_at_ms);
        let now = self.now_ms;
        let mut commands = Vec::new();
        match self.live.get_mut(&notice.key) {
            Some(live) => live.notice = notice.clone(),
            None => {
                self.next_number = self.next_number.wrapping_add(1);
                let number = self.next_number;
                self.live.insert(notice.key.clone(), Live { notice: notice.clone(), number, seen: None });
                while self.arrivals.front().is_some_and(|at| now - at > BURST_WINDOW_MS) {
                    self.arrivals.pop_front();
                }
                self.arrivals.push_back(now);
                if self.summary.is_none() && self.arrivals.len() > BURST_LIMIT {
                    // From now on one notification stands for them all.
                    for live in self.live.values_mut() {
                        if live.seen.take().is_some() {
                            commands.push(Command::Close(Key::Notice(NoticeSlot::One(live.number))));
                        }
                    }
                    self.summary = Some(None);
                }
            }
        }
        commands.extend(self.refresh(now));
        commands
    }

    /// The agent under `key` went on: its notification is withdrawn, or the summary counts one
    /// fewer (withdrawn with the last).
    pub fn clear(&mut self, key: &str) -> Vec<Command> {
        let Some(live) = self.live.remove(key) else { return Vec::new() };
        let mut commands = Vec::new();
        if live.seen.is_some() {
            commands.push(Command::Close(Key::Notice(NoticeSlot::One(live.number))));
        }
        if self.summary.is_some() && self.live.is_empty() {
            if let Some(Some(_)) = self.summary.take() {
                commands.push(Command::Close(Key::Notice(NoticeSlot::Summary)));
            }
            return commands;
        }
        commands.extend(self.refresh(self.now_ms));
        commands
    }

    /// Time passed: what changed in the meantime and may now be shown is shown.
    pub fn tick(&mut self, now_ms: i64) -> Vec<Command> {
        self.now_ms = self.now_ms.max(now_ms);
        self.refresh(self.now_ms)
    }

    /// Withdraws everything shown and forgets every notice (do not disturb).
    pub fn withdraw_all(&mut self) -> Vec<Command> {
        let mut commands: Vec<Command> = self
            .live
            .drain()
            .filter_map(|(_, live)| live.seen.map(|_| Command::Close(Key::Notice(NoticeSlot::One(live.number)))))
            .collect();
        if let Some(Some(_)) = self.summary.take() {
            commands.push(Command::Close(Key::Notice(NoticeSlot::Summary)));
        }
        self.arrivals.clear();
        commands
    }

    /// Shows what differs from what the person sees, for each notification whose last change
    /// is old enough.
    fn refresh(&mut self, now: i64) -> Vec<Command> {
        let due = |seen: &Option<Seen>, show: &Show, refresh: i64| match seen {
            None => true,
            Some(seen) => seen.show != *show && now - seen.at_ms >= refresh,
        };
        let mut commands = Vec::new();
        if let Some(seen) = &self.summary {
            let show = self.summary_show();
            if due(seen, &show, SUMMARY_REFRESH_MS) {
                self.summary = Some(Some(Seen { show: show.clone(), at_ms: now }));
                commands.push(Command::Show(show));
            }
            return commands;
        }
        let mut fresh: Vec<&mut Live> = self.live.values_mut().collect();
        fresh.sort_by_key(|live| live.number);
        for live in fresh {
            let show = for_notice(&live.notice, live.number);
            if due(&live.seen, &show, KEY_REFRESH_MS) {
                live.seen = Some(Seen { show: show.clone(), at_ms: now });
                commands.push(Command::Show(show));
            }
        }
        commands
    }

    fn summary_show(&self) -> Show {
        let count = self.live.len();
        let mut newest: Vec<&Live> = self.live.values().collect();
        newest.sort_by_key(|live| std::cmp::Reverse((live.notice.posted_at_ms, live.number)));
        let mut lines: Vec<String> =
            newest.iter().take(SUMMARY_NAMES).map(|live| cut(&live.notice.title(), 80)).collect();
        if count > SUMMARY_NAMES {
            lines.push(format!("and {} more", count - SUMMARY_NAMES));
        }
        Show {
            key: Key::Notice(NoticeSlot::Summary),
            summary: if count == 1 { "1 agent waits".to_owned() } else { format!("{count} agents wait") },
            body: lines.join("\n"),
            buttons: Vec::new(),
            opens: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting(key: &str, message: &str, at_ms: i64) -> Notice {
        Notice::new(key, "claude-code".into(), message.into(), Some(format!("/home/ada/{key}")), at_ms)
            .expect("a valid notice")
    }

    fn shown(commands: &[Command]) -> Vec<Show> {
        commands.iter().filter_map(|c| if let Command::Show(s) = c { Some(s.clone()) } else { None }).collect()
    }

    fn closed(commands: &[Command]) -> Vec<Key> {
        commands.iter().filter_map(|c| if let Command::Close(k) = c { Some(k.clone()) } else { None }).collect()
    }

    #[test]
    fn a_key_posted_again_and_again_changes_its_notification_at_most_every_key_refresh() {
        let mut board = NoticeBoard::default();
        assert_eq!(shown(&board.post(&waiting("a", "m0", 0))).len(), 1);
        // 200 posts a second under one key, for a second.
        let mut shows = 0;
        for n in 1..=200 {
            shows += shown(&board.post(&waiting("a", &format!("m{n}"), n * 5))).len();
        }
        assert_eq!(shows, 0, "within {KEY_REFRESH_MS} ms of the first");
        // The same text again is nothing to show, however late.
        let later = board.post(&waiting("a", "m200", 3_000));
        let [show] = shown(&later).try_into().expect("the latest, once the time has passed");
        assert_eq!(show.body, "m200");
        assert!(board.post(&waiting("a", "m200", 4_000)).is_empty());
        // Held text is shown by the tick once its time has come.
        assert!(board.post(&waiting("a", "m201", 4_100)).is_empty());
        assert!(board.tick(4_999).is_empty());
        assert_eq!(shown(&board.tick(5_000)).first().map(|s| s.body.as_str()), Some("m201"));
    }

    #[test]
    fn many_notices_at_once_become_one_summary_that_changes_at_most_every_summary_refresh() {
        let mut board = NoticeBoard::default();
        let mut notifications = 0;
        let mut last = None;
        // 1,000 keys in five seconds.
        for n in 0..1_000 {
            let commands = board.post(&waiting(&format!("k{n}"), "Claude is waiting for your input", n * 5));
            notifications += shown(&commands).len();
            last = shown(&commands).pop().or(last);
        }
        assert_eq!(notifications, 3 + 1, "three on their own, then the summary");
        let last = last.expect("something was shown");
        assert_eq!(last.key, Key::Notice(NoticeSlot::Summary));
        // The count as it stands is shown once the time has passed.
        let [summary] = shown(&board.tick(10_000)).try_into().expect("the final count");
        assert_eq!(summary.summary, "1000 agents wait");
        assert_eq!(
            summary.body,
            "claude-code waits in k999\nclaude-code waits in k998\nclaude-code waits in k997\nand 997 more"
        );
        assert!(!summary.opens && summary.buttons.is_empty());
        assert!(board.tick(20_000).is_empty(), "nothing changed");
    }

    #[test]
    fn the_first_few_show_one_by_one_then_the_summary_replaces_them_until_the_last_goes() {
        let mut board = NoticeBoard::default();
        for (n, key) in ["a", "b", "c"].into_iter().enumerate() {
            let commands = board.post(&waiting(key, "waiting", n as i64));
            assert_eq!(shown(&commands).len(), 1, "{key} on its own");
        }
        let fourth = board.post(&waiting("d", "waiting", 3));
        assert_eq!(closed(&fourth).len(), 3, "the single ones are withdrawn");
        assert_eq!(shown(&fourth).first().map(|s| s.summary.as_str()), Some("4 agents wait"));
        // A clear within the refresh time changes the count later.
        assert!(board.clear("a").is_empty());
        assert!(board.tick(SUMMARY_REFRESH_MS - 1).is_empty());
        assert_eq!(
            shown(&board.tick(SUMMARY_REFRESH_MS + 3)).first().map(|s| s.summary.as_str()),
            Some("3 agents wait")
        );
        board.clear("b");
        board.clear("c");
        assert_eq!(closed(&board.clear("d")), vec![Key::Notice(NoticeSlot::Summary)]);
        // Later notices show one by one again.
        let again = board.post(&waiting("e", "waiting", 60_000));
        assert!(matches!(shown(&again).as_slice(), [Show { key: Key::Notice(NoticeSlot::One(_)), .. }]));
    }

    #[test]
    fn do_not_disturb_withdraws_the_summary_and_forgets_the_notices() {
        let mut board = NoticeBoard::default();
        for n in 0..5 {
            board.post(&waiting(&format!("k{n}"), "waiting", n));
        }
        assert_eq!(closed(&board.withdraw_all()), vec![Key::Notice(NoticeSlot::Summary)]);
        assert!(board.clear("k1").is_empty());
        assert_eq!(shown(&board.post(&waiting("k9", "waiting", 100_000))).len(), 1);
    }
}
