//! Bursts of questions, as notifications — decided without I/O.
//!
//! An agent that asks many things at once (a run of approvals, one per tool call) would bury
//! everything else under notifications the person cannot act on one by one. So questions are
//! grouped by who asks and where — one agent in one project — and more than [`BURST_LIMIT`]
//! from one group within [`BURST_WINDOW_MS`] become one notification that counts them ("claude-code
//! in shop: 12 approvals waiting") and opens the inbox. Each group bursts on its own: another
//! agent's burst is counted apart, and an agent that asks once still gets its own notification
//! with its buttons. A group's burst stays while any of its questions waits, and every new
//! question from that group joins it.
//!
//! Time comes in with the calls; nothing here reads a clock.

use std::collections::{BTreeMap, HashMap, VecDeque};

use beckon_core::RequestId;
use beckon_runtime::PendingNotice;

use super::command::{BurstSlot, Command, Key, Show};
use beckon_core::notification::{Group, burst_body};

pub use beckon_core::notification::BURST_LIMIT;

/// The window for counting a burst.
pub const BURST_WINDOW_MS: i64 = 5_000;

/// What a question asks for: a burst counts approvals and questions apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// Permission for a tool call.
    Approval,
    /// An answer.
    Question,
}

impl Asked {
    /// What `notice` asks for.
    pub fn of(notice: &PendingNotice) -> Asked {
        if notice.request.approval().is_some() { Asked::Approval } else { Asked::Question }
    }
}

/// One group's recent arrivals, and the questions its burst notification stands for.
#[derive(Debug, Default)]
struct Recent {
    /// When its questions arrived, within the burst window.
    arrivals: VecDeque<i64>,
    /// What its burst notification counts (none while it has none).
    members: BTreeMap<RequestId, Asked>,
}

/// The groups heard from lately, and what each group's burst stands for.
#[derive(Debug, Default)]
pub struct Bursts {
    groups: HashMap<Group, Recent>,
}

/// The notification for `group`'s burst of `members`: who, where and how many wait; a click
/// opens the inbox. `reminder` marks it as a reminder.
fn burst_show(group: &Group, members: &BTreeMap<RequestId, Asked>, reminder: bool) -> Show {
    let approvals = members.values().filter(|asked| **asked == Asked::Approval).count();
    let questions = members.len() - approvals;
    let prefix = if reminder { "Still waiting — " } else { "" };
    Show {
        key: Key::Burst(BurstSlot::Group(group.clone())),
        summary: format!("{prefix}{}", group.burst_title(approvals, questions)),
        body: burst_body(members.len()).into(),
        buttons: Vec::new(),
        opens: true,
    }
}

impl Bursts {
    /// A question from `group` arrived at `now_ms`: whether it joins the group's burst (more
    /// than [`BURST_LIMIT`] from the group within [`BURST_WINDOW_MS`], or its burst still
    /// shows) rather than showing on its own. Groups that have gone quiet are forgotten.
    pub fn arrive(&mut self, group: &Group, now_ms: i64) -> bool {
        self.groups.retain(|_, recent| {
            while recent.arrivals.front().is_some_and(|at| now_ms - at > BURST_WINDOW_MS) {
                recent.arrivals.pop_front();
            }
            !recent.arrivals.is_empty() || !recent.members.is_empty()
        });
        let recent = self.groups.entry(group.clone()).or_default();
        recent.arrivals.push_back(now_ms);
        recent.arrivals.len() > BURST_LIMIT || !recent.members.is_empty()
    }

    /// `questions` join `group`'s burst: its notification, shown or updated.
    pub fn join(&mut self, group: &Group, questions: impl IntoIterator<Item = (RequestId, Asked)>) -> Command {
        let recent = self.groups.entry(group.clone()).or_default();
        recent.members.extend(questions);
        Command::Show(burst_show(group, &recent.members, false))
    }

    /// Whether `id` is counted in `group`'s burst.
    pub fn counts(&self, group: &Group, id: RequestId) -> bool {
        self.groups.get(group).is_some_and(|recent| recent.members.contains_key(&id))
    }

    /// `group`'s burst notification again, as a reminder (none while it has no burst).
    pub fn reminder(&self, group: &Group) -> Option<Command> {
        let recent = self.groups.get(group).filter(|recent| !recent.members.is_empty())?;
        Some(Command::Show(burst_show(group, &recent.members, true)))
    }

    /// `id` of `group` was resolved: the burst counting it counts one fewer, and is withdrawn
    /// with its last question. Nothing when no burst counts it.
    pub fn resolved(&mut self, group: &Group, id: RequestId) -> Option<Command> {
        let recent = self.groups.get_mut(group)?;
        recent.members.remove(&id)?;
        if recent.members.is_empty() {
            Some(Command::Close(Key::Burst(BurstSlot::Group(group.clone()))))
        } else {
            Some(Command::Show(burst_show(group, &recent.members, false)))
        }
    }

    /// Withdraws every burst and forgets every group (do not disturb).
    pub fn withdraw_all(&mut self) -> Vec<Command> {
        let mut bursting: Vec<Group> =
            self.groups.drain().filter(|(_, recent)| !recent.members.is_empty()).map(|(group, _)| group).collect();
        bursting.sort();
        bursting.into_iter().map(|group| Command::Close(Key::Burst(BurstSlot::Group(group)))).collect()
    }
}
