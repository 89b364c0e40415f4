//! What planning decides: which notification (its key), and whether to show it, with what, or
//! to withdraw it. The planner, its bursts and its notices all speak these; the backends carry
//! them out.

use beckon_core::RequestId;

use beckon_core::notification::Group;

/// What a notification stands for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Key {
    /// One question.
    Question(RequestId),
    /// Several questions from one agent in one project that arrived together, or all that were
    /// waiting when Beckon started.
    Burst(BurstSlot),
    /// Agents waiting at their own prompts: one, or the summary of many.
    Notice(NoticeSlot),
    /// The test notification the person asked for (from the getting-started guide).
    Test,
}

/// Which burst notification.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BurstSlot {
    /// The questions that waited while Beckon was closed, all of them.
    CaughtUp,
    /// Questions from one agent in one project that arrived together.
    Group(Group),
}

/// Which notice notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NoticeSlot {
    /// One notice (numbered by the board, one per notice key).
    One(u32),
    /// The summary standing for every notice while many wait.
    Summary,
}

/// A notification to show (replacing any shown under the same key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Show {
    /// What it stands for.
    pub key: Key,
    /// "research › summariser asks: Sources".
    pub summary: String,
    /// The question text, truncated.
    pub body: String,
    /// One button per option, as (action key, label): `answer:<index>`.
    pub buttons: Vec<(String, String)>,
    /// Whether a click opens the window ("Open"); not for a notice, whose agent waits in its
    /// own terminal.
    pub opens: bool,
}

/// What to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Show (or replace) a notification.
    Show(Show),
    /// Withdraw a notification.
    Close(Key),
}
