//! What the tray shows for a set of pending questions: a title with the number of agents
//! waiting, and a menu of the newest ten questions.

use beckon_core::RequestId;

/// The most questions listed in the tray menu.
pub const MENU_QUESTIONS: usize = 10;

/// A pending question as the tray knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrayQuestion {
    /// Its id.
    pub id: RequestId,
    /// Who asks ("research › summariser").
    pub origin: String,
    /// Its header, or first words.
    pub summary: String,
    /// When it was asked (Unix ms).
    pub asked_at_ms: i64,
}

/// The tray's title, icon and question entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrayModel {
    /// "3 agents waiting", or "Beckon" when nothing waits.
    pub title: String,
    /// Whether to show the "something waits" icon.
    pub waiting: bool,
    /// Menu entries, newest first: (question, label).
    pub entries: Vec<(RequestId, String)>,
    /// How many more wait than are listed.
    pub more: usize,
}

/// The model for `pending` (any order).
pub fn model(pending: &[TrayQuestion]) -> TrayModel {
    let title = match pending.len() {
        0 => "Beckon".to_owned(),
        1 => "1 agent waiting".to_owned(),
        n => format!("{n} agents waiting"),
    };
    let mut newest: Vec<&TrayQuestion> = pending.iter().collect();
    newest.sort_by(|a, b| b.asked_at_ms.cmp(&a.asked_at_ms).then(b.id.cmp(&a.id)));
    let entries =
        newest.iter().take(MENU_QUESTIONS).map(|q| (q.id, label(&format!("{}: {}", q.origin, q.summary)))).collect();
    TrayModel { title, waiting: !pending.is_empty(), entries, more: pending.len().saturating_sub(MENU_QUESTIONS) }
}

/// A menu label: one line, at most 60 characters.
fn label(text: &str) -> String {
    let line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if line.chars().count() > 60 { format!("{}…", line.chars().take(59).collect::<String>()) } else { line }
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;

    fn question(n: u128, origin: &str, summary: &str, at: i64) -> TrayQuestion {
        TrayQuestion {
            id: RequestId::from_uuid(Uuid::from_u128(n)),
            origin: origin.into(),
            summary: summary.into(),
            asked_at_ms: at,
        }
    }

    #[test]
    fn nothing_waiting_shows_the_app_name() {
        assert_eq!(model(&[]), TrayModel { title: "Beckon".into(), waiting: false, entries: vec![], more: 0 });
    }

    #[test]
    fn the_title_counts_and_the_menu_lists_newest_first() {
        let pending = [
            question(1, "poet", "Style", 10),
            question(2, "research › summariser", "Sources", 30),
            question(3, "ci-bot", "Deploy", 20),
        ];
        let tray = model(&pending);
        assert_eq!(tray.title, "3 agents waiting");
        assert!(tray.waiting);
        let labels: Vec<&str> = tray.entries.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["research › summariser: Sources", "ci-bot: Deploy", "poet: Style"]);
        assert_eq!(model(&pending[..1]).title, "1 agent waiting");
    }

    #[test]
    fn the_menu_lists_ten_and_counts_the_rest() {
        let pending: Vec<TrayQuestion> = (0..13).map(|i| question(i, "bot", &format!("Q{i}"), i as i64)).collect();
        let tray = model(&pending);
        assert_eq!(tray.entries.len(), MENU_QUESTIONS);
        assert_eq!(tray.entries[0].1, "bot: Q12");
        assert_eq!(tray.more, 3);
    }

    #[test]
    fn labels_are_one_short_line() {
        let tray = model(&[question(1, "bot", &format!("line one\nline two {}", "x".repeat(100)), 1)]);
        let label = &tray.entries[0].1;
        assert!(!label.contains('\n'));
        assert_eq!(label.chars().count(), 60);
    }
}
