//! Which notifications to show, replace and withdraw — decided without I/O, so every rule
//! (bursts coalesced per agent and project, the catch-up at start, reminders, do not disturb,
//! withdrawal on resolution, what an approval may offer, notices of agents waiting at their own
//! prompt) is unit-tested.

use std::collections::{BTreeSet, HashMap};

use beckon_core::notification;
use beckon_core::{Notice, RequestId};
use beckon_runtime::PendingNotice;

use super::burst::{Asked, Bursts};
pub use super::command::{BurstSlot, Command, Key, Show};
use super::notice_board::NoticeBoard;
pub use beckon_core::notification::Group;

#[derive(Debug, Clone)]
struct Waiting {
    notice: PendingNotice,
    /// Who asks it and where.
    group: Group,
    /// When it was last brought to the person's attention.
    notified_ms: i64,
}

/// The planner's memory.
#[derive(Debug, Default)]
pub struct Planner {
    dnd: bool,
    reminder_ms: Option<i64>,
    waiting: HashMap<RequestId, Waiting>,
    /// Questions shown on their own.
    shown: BTreeSet<RequestId>,
    /// Each agent's bursts, per project.
    bursts: Bursts,
    /// The questions the catch-up notification counts: those that waited while Beckon was
    /// closed.
    caught_up: BTreeSet<RequestId>,
    /// Notices of agents waiting at their own prompts.
    notices: NoticeBoard,
}

/// The notification for one question, as every platform words it (see
/// [`beckon_core::notification::question`]); a reminder says it is still waiting.
pub fn for_question(notice: &PendingNotice, reminder: bool) -> Show {
    let shown = notification::question(&notice.origin.to_string(), &notice.request);
    let summary = if reminder { format!("Still waiting — {}", shown.title) } else { shown.title };
    Show { key: Key::Question(notice.request_id), summary, body: shown.body, buttons: shown.buttons, opens: true }
}

/// The notification the person asks for to see that notifications reach them: one button, as
/// a question's would have, and a click that brings the window forward.
pub fn test_notification() -> Show {
    Show {
        key: Key::Test,
        summary: "Beckon can reach you".into(),
        body: "This is how an agent's question arrives. Press the button to check that it reaches Beckon.".into(),
        buttons: vec![("test:pressed".into(), "It works".into())],
        opens: true,
    }
}

impl Planner {
    /// A planner with the person's settings.
    pub fn new(dnd: bool, reminder_minutes: u32) -> Planner {
        Planner {
            dnd,
            reminder_ms: (reminder_minutes > 0).then(|| i64::from(reminder_minutes) * 60_000),
            ..Planner::default()
        }
    }

    /// Turns "do not disturb" on (withdrawing what is shown) or off.
    pub fn set_dnd(&mut self, on: bool) -> Vec<Command> {
        self.dnd = on;
        if on { self.withdraw_all() } else { Vec::new() }
    }

    /// Changes the reminder interval (0: off).
    pub fn set_reminder(&mut self, minutes: u32) {
        self.reminder_ms = (minutes > 0).then(|| i64::from(minutes) * 60_000);
    }

    fn withdraw_all(&mut self) -> Vec<Command> {
        let mut commands: Vec<Command> =
            std::mem::take(&mut self.shown).into_iter().map(|id| Command::Close(Key::Question(id))).collect();
        if !std::mem::take(&mut self.caught_up).is_empty() {
            commands.push(Command::Close(Key::Burst(BurstSlot::CaughtUp)));
        }
        commands.extend(self.bursts.withdraw_all());
        commands.extend(self.notices.withdraw_all());
        commands
    }

    /// The catch-up notification, counting what still waits of it.
    fn caught_up_notice(&self) -> Command {
        let count = self.caught_up.len();
        Command::Show(Show {
            key: Key::Burst(BurstSlot::CaughtUp),
            summary: if count == 1 {
                "1 question waited while Beckon was closed".to_owned()
            } else {
                format!("{count} questions waited while Beckon was closed")
            },
            body: "Open the inbox to answer them.".into(),
            buttons: Vec::new(),
            opens: true,
        })
    }

    /// Remembers `notice`, notified at `now_ms`; false when it was known already.
    fn remember(&mut self, notice: &PendingNotice, now_ms: i64) -> bool {
        if self.waiting.contains_key(&notice.request_id) {
            return false;
        }
        let waiting = Waiting {
            notice: notice.clone(),
            group: Group::asking(&notice.agent, &notice.request),
            notified_ms: now_ms,
        };
        self.waiting.insert(notice.request_id, waiting);
        true
    }

    /// Beckon started at `now_ms` with `waiting` already pending (asked while it was closed, or
    /// left from before): one notification for them all, never one each — the question itself
    /// (with its buttons) when it is the only one, else a summary that opens the inbox, whoever
    /// asked. Nothing under "do not disturb". All of them are remembered for reminders and
    /// withdrawal.
    pub fn caught_up(&mut self, waiting: &[PendingNotice], now_ms: i64) -> Vec<Command> {
        let fresh: Vec<&PendingNotice> = waiting.iter().filter(|notice| self.remember(notice, now_ms)).collect();
        if self.dnd {
            return Vec::new();
        }
        match fresh.as_slice() {
            [] => Vec::new(),
            [only] => {
                self.shown.insert(only.request_id);
                vec![Command::Show(for_question(only, false))]
            }
            several => {
                self.caught_up.extend(several.iter().map(|notice| notice.request_id));
                vec![self.caught_up_notice()]
            }
        }
    }

    /// A question became pending at `now_ms`: shown on its own, or counted in its agent's
    /// burst in its project (see [`super::burst`]), which withdraws the ones of that agent and
    /// project shown on their own. A question already known (one the catch-up at start found
    /// as well) is not announced twice.
    pub fn pending(&mut self, notice: &PendingNotice, now_ms: i64) -> Vec<Command> {
        if !self.remember(notice, now_ms) || self.dnd {
            return Vec::new();
        }
        let group = Group::asking(&notice.agent, &notice.request);
        if !self.bursts.arrive(&group, now_ms) {
            self.shown.insert(notice.request_id);
            return vec![Command::Show(for_question(notice, false))];
        }
        // A burst: one notification for all of this agent's in this project.
        let absorbed: Vec<(RequestId, Asked)> = self
            .shown
            .iter()
            .filter_map(|id| self.waiting.get(id))
            .filter(|waiting| waiting.group == group)
            .map(|waiting| (waiting.notice.request_id, Asked::of(&waiting.notice)))
            .collect();
        let mut commands = Vec::with_capacity(absorbed.len() + 1);
        for (id, _) in &absorbed {
            self.shown.remove(id);
            commands.push(Command::Close(Key::Question(*id)));
        }
        let joining = absorbed.into_iter().chain([(notice.request_id, Asked::of(notice))]);
        commands.push(self.bursts.join(&group, joining));
        commands
    }

    /// A question was resolved (anywhere): its notification is withdrawn, and a burst or the
    /// catch-up that counted it counts one fewer (withdrawn with the last).
    pub fn resolved(&mut self, id: RequestId) -> Vec<Command> {
        let waiting = self.waiting.remove(&id);
        let mut commands = Vec::new();
        if self.shown.remove(&id) {
            commands.push(Command::Close(Key::Question(id)));
        }
        if self.caught_up.remove(&id) {
            if self.caught_up.is_empty() {
                commands.push(Command::Close(Key::Burst(BurstSlot::CaughtUp)));
            } else {
                commands.push(self.caught_up_notice());
            }
        }
        if let Some(waiting) = waiting {
            commands.extend(self.bursts.resolved(&waiting.group, id));
        }
        commands
    }

    /// An agent waits at its own prompt (as of its `posted_at_ms`): shown (replacing its
    /// earlier notice), or counted in the summary of many (see [`NoticeBoard`]), unless "do
    /// not disturb" is on. Notices are never reminded of: the agent posts again when it waits
    /// again.
    pub fn notice(&mut self, notice: &Notice) -> Vec<Command> {
        if self.dnd {
            return Vec::new();
        }
        self.notices.post(notice)
    }

    /// The agent under `key` went on: its notice is withdrawn.
    pub fn notice_cleared(&mut self, key: &str) -> Vec<Command> {
        self.notices.clear(key)
    }

    /// Reminds about questions that have waited a whole interval since last notified, and
    /// shows notice changes that were held back.
    pub fn tick(&mut self, now_ms: i64) -> Vec<Command> {
        let mut commands = if self.dnd { Vec::new() } else { self.notices.tick(now_ms) };
        commands.extend(self.remind(now_ms));
        commands
    }

    /// Each question that has waited a whole interval since last notified is shown again — by
    /// its burst's notification, once for all of them, when a burst counts it.
    fn remind(&mut self, now_ms: i64) -> Vec<Command> {
        let (Some(interval), false) = (self.reminder_ms, self.dnd) else { return Vec::new() };
        let mut due: Vec<&mut Waiting> =
            self.waiting.values_mut().filter(|w| now_ms - w.notified_ms >= interval).collect();
        due.sort_by_key(|w| (w.notice.created_at_ms, w.notice.request_id));
        let mut reminded: BTreeSet<&Group> = BTreeSet::new();
        let mut commands = Vec::new();
        for waiting in due {
            waiting.notified_ms = now_ms;
            let waiting: &Waiting = waiting;
            let id = waiting.notice.request_id;
            if self.bursts.counts(&waiting.group, id) {
                if reminded.insert(&waiting.group) {
                    commands.extend(self.bursts.reminder(&waiting.group));
                }
            } else {
                self.shown.insert(id);
                commands.push(Command::Show(for_question(&waiting.notice, true)));
            }
        }
        commands
    }

    /// The question a notification key stands for, if it is still waiting.
    pub fn question(&self, id: RequestId) -> Option<&PendingNotice> {
        self.waiting.get(&id).map(|w| &w.notice)
    }
}

#[cfg(test)]
mod tests {
    use beckon_core::conversation::Origin;
    use beckon_core::{QuestionRequest, SessionId};
    use serde_json::json;
    use uuid::Uuid;

    use super::*;

    fn notice(n: u128, request: serde_json::Value) -> PendingNotice {
        PendingNotice {
            request_id: RequestId::from_uuid(Uuid::from_u128(n)),
            session_id: SessionId::from_uuid(Uuid::from_u128(1000 + n)),
            agent: "summariser".into(),
            origin: Origin::agent("research").child("summariser"),
            request: QuestionRequest::parse(&request).unwrap(),
            created_at_ms: n as i64,
            expires_at_ms: None,
        }
    }

    fn yes_no(n: u128) -> PendingNotice {
        notice(
            n,
            json!({"questions": [{"question": "Deploy now?", "header": "Deploy", "options": [{"label": "Yes"}, {"label": "No"}]}]}),
        )
    }

    fn shows(commands: &[Command]) -> Vec<Key> {
        commands.iter().filter_map(|c| if let Command::Show(s) = c { Some(s.key.clone()) } else { None }).collect()
    }

    fn closes(commands: &[Command]) -> Vec<Key> {
        commands.iter().filter_map(|c| if let Command::Close(k) = c { Some(k.clone()) } else { None }).collect()
    }

    #[test]
    fn a_question_shows_with_its_origin_header_text_and_buttons() {
        let show = for_question(&yes_no(1), false);
        assert_eq!(show.summary, "research › summariser asks: Deploy");
        assert_eq!(show.body, "Deploy now?");
        assert_eq!(show.buttons, vec![("answer:0".into(), "Yes".into()), ("answer:1".into(), "No".into())]);
    }

    #[test]
    fn buttons_only_for_one_single_select_question_of_up_to_three_options() {
        let four = notice(
            1,
            json!({"questions": [{"question": "Pick?", "options": [{"label": "A"}, {"label": "B"}, {"label": "C"}, {"label": "D"}]}]}),
        );
        assert!(for_question(&four, false).buttons.is_empty());
        let multi = notice(
            2,
            json!({"questions": [{"question": "Pick?", "multiSelect": true, "options": [{"label": "A"}, {"label": "B"}]}]}),
        );
        assert!(for_question(&multi, false).buttons.is_empty());
        let two = notice(
            3,
            json!({"questions": [
                {"question": "One?", "options": [{"label": "A"}, {"label": "B"}]},
                {"question": "Two?", "options": [{"label": "C"}, {"label": "D"}]}
            ]}),
        );
        let show = for_question(&two, false);
        assert!(show.buttons.is_empty());
        assert_eq!(show.body, "One?\n(+1 more question)");
        let free = notice(4, json!({"questions": [{"question": "How many?", "schema": {"type": "integer"}}]}));
        assert!(for_question(&free, false).buttons.is_empty());
        assert_eq!(for_question(&free, false).summary, "research › summariser asks: How many?");
    }

    #[test]
    fn long_texts_are_cut() {
        let long = notice(
            1,
            json!({"questions": [{"question": "q".repeat(1000), "options": [{"label": "A"}, {"label": "B"}]}]}),
        );
        assert_eq!(for_question(&long, false).body.chars().count(), 240, "a question's body is cut to 240 characters");
    }

    fn approval(n: u128, command: &str, suggestions: serde_json::Value) -> PendingNotice {
        let approval = beckon_core::Approval::parse(
            &json!({"tool_name": "Bash", "input": {"command": command}, "suggestions": suggestions}),
            "",
        )
        .unwrap();
        PendingNotice { request: QuestionRequest::for_approval(approval), ..yes_no(n) }
    }

    #[test]
    fn an_approval_shows_its_command_and_never_offers_allow_always() {
        let rules = json!([{"type": "addRules", "rules": [{"toolName": "Bash"}], "behavior": "allow",
            "destination": "userSettings"}]);
        let pending = approval(1, "curl -fsSL https://get.example.com | sh", rules);
        for show in [for_question(&pending, false), for_question(&pending, true)] {
            assert_eq!(show.summary.trim_start_matches("Still waiting — "), "research › summariser asks: Bash");
            assert_eq!(show.body, "Allow Claude to run this command?\ncurl -fsSL https://get.example.com | sh");
            assert_eq!(show.buttons, vec![("answer:0".into(), "Allow".into()), ("answer:2".into(), "Deny".into())]);
            assert!(show.opens, "the window, where Allow always is, is a click away");
        }
    }

    #[test]
    fn an_approval_too_long_to_show_offers_no_allow() {
        let pending = approval(1, &format!("echo {}| sh", "x".repeat(2_000)), json!([]));
        let mut planner = Planner::new(false, 30);
        let commands = planner.pending(&pending, 0);
        let [Command::Show(show)] = commands.as_slice() else { panic!("{commands:?}") };
        assert_eq!(show.buttons, vec![("answer:1".into(), "Deny".into())]);
        assert!(show.body.contains("x…\n"), "{}", show.body);
        assert!(show.opens);
    }

    #[test]
    fn resolution_anywhere_withdraws_the_notification() {
        let mut planner = Planner::new(false, 30);
        planner.pending(&yes_no(1), 0);
        assert_eq!(closes(&planner.resolved(yes_no(1).request_id)), vec![Key::Question(yes_no(1).request_id)]);
        assert!(planner.resolved(yes_no(1).request_id).is_empty(), "only once");
    }

    fn burst_of(agent: &str, project: Option<&str>) -> Key {
        Key::Burst(BurstSlot::Group(Group { agent: agent.into(), project: project.map(str::to_owned) }))
    }

    /// A question asked by `agent` (no project: only approvals name one).
    fn question_by(n: u128, agent: &str) -> PendingNotice {
        PendingNotice { agent: agent.into(), origin: Origin::agent(agent), ..yes_no(n) }
    }

    /// An approval asked by `agent`, working in `project`.
    fn approval_by(n: u128, agent: &str, project: Option<&str>) -> PendingNotice {
        let mut call = json!({"tool_name": "Bash", "input": {"command": format!("make test-{n}")}});
        if let Some(project) = project {
            call["project"] = json!(project);
        }
        let approval = beckon_core::Approval::parse(&call, "").unwrap();
        PendingNotice { request: QuestionRequest::for_approval(approval), ..question_by(n, agent) }
    }

    /// What the person sees after `commands`: every notification shown and not withdrawn.
    fn on_screen(screen: &mut HashMap<Key, Show>, commands: Vec<Command>) {
        for command in commands {
            match command {
                Command::Show(show) => {
                    screen.insert(show.key.clone(), show);
                }
                Command::Close(key) => {
                    assert!(screen.remove(&key).is_some(), "{key:?} was withdrawn but not shown");
                }
            }
        }
    }

    fn sorted_summaries(screen: &HashMap<Key, Show>) -> Vec<&str> {
        let mut summaries: Vec<&str> = screen.values().map(|show| show.summary.as_str()).collect();
        summaries.sort();
        summaries
    }

    #[test]
    fn more_than_three_from_one_agent_at_once_become_one_notification_that_counts_them() {
        let mut planner = Planner::new(false, 30);
        for n in 1..=3 {
            assert_eq!(shows(&planner.pending(&yes_no(n), n as i64 * 100)), vec![Key::Question(yes_no(n).request_id)]);
        }
        let fourth = planner.pending(&yes_no(4), 400);
        assert_eq!(
            closes(&fourth),
            (1..=3).map(|n| Key::Question(yes_no(n).request_id)).collect::<Vec<_>>(),
            "the single ones are withdrawn"
        );
        let Some(Command::Show(burst)) = fourth.last() else { panic!("{fourth:?}") };
        assert_eq!(burst.key, burst_of("summariser", None));
        assert_eq!(burst.summary, "summariser (no project): 4 questions waiting");
        assert_eq!(burst.body, "Open the inbox to answer them.");
        assert!(burst.opens && burst.buttons.is_empty(), "only Open, at the inbox");
        let fifth = planner.pending(&yes_no(5), 500);
        assert_eq!(summaries(&fifth), ["summariser (no project): 5 questions waiting"]);
        assert_eq!(shows(&fifth), vec![burst.key.clone()], "it joins the same notification");
        for n in 1..=4 {
            planner.resolved(yes_no(n).request_id);
        }
        assert_eq!(closes(&planner.resolved(yes_no(5).request_id)), vec![burst.key.clone()]);
        // Well after the burst, questions show one by one again.
        assert_eq!(shows(&planner.pending(&yes_no(9), 60_000)), vec![Key::Question(yes_no(9).request_id)]);
    }

    #[test]
    fn two_agents_bursting_at_once_are_counted_apart_and_a_third_keeps_its_buttons() {
        let mut planner = Planner::new(false, 30);
        let mut screen = HashMap::new();
        // Interleaved, within one second: 12 from one agent, 5 from another, same project.
        for n in 0..12 {
            on_screen(
                &mut screen,
                planner.pending(&approval_by(n, "claude-code", Some("/home/ada/shop")), n as i64 * 50),
            );
            if n < 5 {
                on_screen(
                    &mut screen,
                    planner.pending(&approval_by(100 + n, "opencode", Some("/home/ada/shop")), n as i64 * 50),
                );
            }
        }
        assert_eq!(
            sorted_summaries(&screen),
            ["claude-code in shop: 12 approvals waiting", "opencode in shop: 5 approvals waiting"]
        );
        // A third agent asks once in the middle of it: its own notification, with its buttons.
        let single = question_by(200, "deploy-bot");
        let commands = planner.pending(&single, 700);
        assert_eq!(commands, vec![Command::Show(for_question(&single, false))]);
        let [Command::Show(show)] = commands.as_slice() else { panic!("{commands:?}") };
        assert_eq!(show.buttons, vec![("answer:0".into(), "Yes".into()), ("answer:1".into(), "No".into())]);
        on_screen(&mut screen, commands);
        assert_eq!(screen.len(), 3);
        // One more from a bursting agent joins its burst and touches nothing else.
        let joined = planner.pending(&approval_by(12, "claude-code", Some("/home/ada/shop")), 800);
        assert_eq!(summaries(&joined), ["claude-code in shop: 13 approvals waiting"]);
        assert!(closes(&joined).is_empty());
    }

    #[test]
    fn one_agent_bursts_apart_in_each_project() {
        let mut planner = Planner::new(false, 30);
        let mut screen = HashMap::new();
        for n in 0..4 {
            on_screen(&mut screen, planner.pending(&approval_by(n, "claude-code", Some("/home/ada/shop")), n as i64));
            on_screen(&mut screen, planner.pending(&approval_by(10 + n, "claude-code", Some("/srv/api/")), n as i64));
            on_screen(&mut screen, planner.pending(&approval_by(20 + n, "claude-code", None), n as i64));
        }
        assert_eq!(
            sorted_summaries(&screen),
            [
                "claude-code (no project): 4 approvals waiting",
                "claude-code in api: 4 approvals waiting",
                "claude-code in shop: 4 approvals waiting"
            ]
        );
        assert!(screen.contains_key(&burst_of("claude-code", Some("/srv/api/"))));
    }

    #[test]
    fn a_burst_counts_approvals_questions_or_both() {
        let mut planner = Planner::new(false, 30);
        let mut last = Vec::new();
        for n in 0..5 {
            last = planner.pending(&approval_by(n, "deploy-bot", None), n as i64);
        }
        assert_eq!(summaries(&last), ["deploy-bot (no project): 5 approvals waiting"]);
        assert_eq!(
            summaries(&planner.pending(&question_by(5, "deploy-bot"), 10)),
            ["deploy-bot (no project): 5 approvals and 1 question waiting"]
        );
        assert_eq!(
            summaries(&planner.pending(&question_by(6, "deploy-bot"), 20)),
            ["deploy-bot (no project): 5 approvals and 2 questions waiting"]
        );
        for n in 0..5 {
            planner.resolved(approval_by(n, "deploy-bot", None).request_id);
        }
        let shrunk = planner.resolved(question_by(5, "deploy-bot").request_id);
        let [Command::Show(show)] = shrunk.as_slice() else { panic!("{shrunk:?}") };
        assert_eq!(show.summary, "deploy-bot (no project): 1 question waiting");
        assert_eq!(show.body, "Open the inbox to answer it.");
        let mut planner = Planner::new(false, 30);
        let mut last = Vec::new();
        for n in 0..4 {
            last = planner.pending(&question_by(n, "research"), n as i64);
        }
        assert_eq!(summaries(&last), ["research (no project): 4 questions waiting"]);
    }

    #[test]
    fn resolving_shrinks_a_burst_and_withdraws_it_at_zero() {
        let mut planner = Planner::new(false, 30);
        let asked: Vec<PendingNotice> = (0..4).map(|n| approval_by(n, "claude-code", Some("/home/ada/shop"))).collect();
        let single = question_by(9, "deploy-bot");
        planner.pending(&single, 0);
        for (n, notice) in asked.iter().enumerate() {
            planner.pending(notice, n as i64);
        }
        let key = burst_of("claude-code", Some("/home/ada/shop"));
        for (left, notice) in (1..4).rev().zip(&asked) {
            let commands = planner.resolved(notice.request_id);
            assert_eq!(shows(&commands), vec![key.clone()]);
            let expected = if left == 1 { "1 approval".to_owned() } else { format!("{left} approvals") };
            assert_eq!(summaries(&commands), [format!("claude-code in shop: {expected} waiting")]);
        }
        assert_eq!(planner.resolved(asked[3].request_id), vec![Command::Close(key)]);
        assert!(planner.resolved(asked[3].request_id).is_empty(), "only once");
        // The other agent's question was never part of it.
        assert_eq!(closes(&planner.resolved(single.request_id)), vec![Key::Question(single.request_id)]);
    }

    #[test]
    fn a_burst_is_reminded_of_once_for_all_it_counts() {
        let mut planner = Planner::new(false, 30);
        for n in 0..4 {
            planner.pending(&approval_by(n, "claude-code", Some("/home/ada/shop")), n as i64);
        }
        planner.pending(&question_by(9, "deploy-bot"), 10);
        assert!(planner.tick(29 * 60_000).is_empty());
        let reminded = planner.tick(30 * 60_000 + 10);
        assert_eq!(
            summaries(&reminded),
            ["Still waiting — claude-code in shop: 4 approvals waiting", "Still waiting — deploy-bot asks: Deploy"]
        );
        assert!(planner.tick(31 * 60_000).is_empty(), "not again until another interval passes");
        // A reminded burst still shrinks and goes as its questions are answered.
        for n in 0..3 {
            planner.resolved(approval_by(n, "claude-code", None).request_id);
        }
        assert_eq!(
            closes(&planner.resolved(approval_by(3, "claude-code", None).request_id)),
            vec![burst_of("claude-code", Some("/home/ada/shop"))]
        );
    }

    #[test]
    fn do_not_disturb_withdraws_bursts_and_they_start_afresh() {
        let mut planner = Planner::new(false, 30);
        for n in 0..4 {
            planner.pending(&approval_by(n, "claude-code", Some("/home/ada/shop")), n as i64);
            planner.pending(&question_by(10 + n, "research"), n as i64);
        }
        assert_eq!(
            closes(&planner.set_dnd(true)),
            vec![burst_of("claude-code", Some("/home/ada/shop")), burst_of("research", None)]
        );
        assert!(planner.pending(&question_by(20, "research"), 10).is_empty());
        assert!(planner.resolved(question_by(10, "research").request_id).is_empty(), "nothing shows to update");
        planner.set_dnd(false);
        let again = question_by(21, "research");
        assert_eq!(shows(&planner.pending(&again, 60_000)), vec![Key::Question(again.request_id)]);
    }

    #[test]
    fn questions_spread_out_never_burst() {
        let mut planner = Planner::new(false, 30);
        for n in 1..=6 {
            assert_eq!(
                shows(&planner.pending(&yes_no(n), n as i64 * 3_000)),
                vec![Key::Question(yes_no(n).request_id)],
                "question {n}"
            );
        }
    }

    #[test]
    fn reminders_come_after_the_interval_and_can_be_off() {
        let mut planner = Planner::new(false, 30);
        planner.pending(&yes_no(1), 0);
        assert!(planner.tick(29 * 60_000).is_empty());
        let reminded = planner.tick(30 * 60_000);
        let [Command::Show(show)] = reminded.as_slice() else { panic!("{reminded:?}") };
        assert!(show.summary.starts_with("Still waiting — "));
        assert!(planner.tick(31 * 60_000).is_empty(), "not again until another interval passes");
        assert_eq!(planner.tick(60 * 60_000).len(), 1);
        planner.resolved(yes_no(1).request_id);
        assert!(planner.tick(200 * 60_000).is_empty());
        let mut off = Planner::new(false, 0);
        off.pending(&yes_no(1), 0);
        assert!(off.tick(1_000 * 60_000).is_empty());
    }

    fn summaries(commands: &[Command]) -> Vec<&str> {
        commands.iter().filter_map(|c| if let Command::Show(s) = c { Some(s.summary.as_str()) } else { None }).collect()
    }

    #[test]
    fn questions_waiting_at_start_are_notified_once_for_all_of_them() {
        let mut planner = Planner::new(false, 30);
        let waiting = [yes_no(1), approval_by(2, "claude-code", Some("/home/ada/shop")), question_by(3, "deploy-bot")];
        let start = planner.caught_up(&waiting, 1_000);
        let [Command::Show(show)] = start.as_slice() else { panic!("one notification: {start:?}") };
        let caught_up = Key::Burst(BurstSlot::CaughtUp);
        assert_eq!(show.key, caught_up, "whoever asked");
        assert_eq!(show.summary, "3 questions waited while Beckon was closed");
        assert_eq!(show.body, "Open the inbox to answer them.");
        assert!(show.opens && show.buttons.is_empty(), "it opens the inbox");
        // The runtime may report one of them as it starts: it is not announced again.
        assert!(planner.pending(&waiting[1], 1_100).is_empty());
        assert_eq!(summaries(&planner.resolved(yes_no(1).request_id)), ["2 questions waited while Beckon was closed"]);
        // A new question shows on its own, with its buttons; the catch-up counts only what waited.
        let new = question_by(4, "deploy-bot");
        assert_eq!(planner.pending(&new, 2_000), vec![Command::Show(for_question(&new, false))]);
        assert_eq!(summaries(&planner.resolved(waiting[1].request_id)), ["1 question waited while Beckon was closed"]);
        assert_eq!(closes(&planner.resolved(waiting[2].request_id)), vec![caught_up]);
        assert_eq!(closes(&planner.resolved(new.request_id)), vec![Key::Question(new.request_id)]);
        // Later questions show one by one again.
        assert_eq!(shows(&planner.pending(&yes_no(5), 60_000)), vec![Key::Question(yes_no(5).request_id)]);
    }

    #[test]
    fn a_single_question_waiting_at_start_shows_itself_with_its_buttons() {
        let mut planner = Planner::new(false, 30);
        let start = planner.caught_up(&[yes_no(1)], 0);
        assert_eq!(start, vec![Command::Show(for_question(&yes_no(1), false))]);
        assert_eq!(closes(&planner.resolved(yes_no(1).request_id)), vec![Key::Question(yes_no(1).request_id)]);
        assert!(Planner::new(false, 30).caught_up(&[], 0).is_empty(), "nothing waiting, nothing shown");
    }

    #[test]
    fn the_catch_up_honours_do_not_disturb_and_the_questions_are_reminded_of_later() {
        let mut planner = Planner::new(true, 30);
        let waiting: Vec<PendingNotice> = (1..=3).map(yes_no).collect();
        assert!(planner.caught_up(&waiting, 0).is_empty());
        assert!(planner.set_dnd(false).is_empty(), "nothing was shown, so nothing to withdraw");
        assert!(planner.tick(29 * 60_000).is_empty());
        assert_eq!(planner.tick(30 * 60_000).len(), 3, "each is reminded of once the interval has passed");
    }

    #[test]
    fn the_test_notification_has_a_button_and_opens_the_window() {
        let show = test_notification();
        assert_eq!(show.key, Key::Test);
        assert!(show.opens);
        assert_eq!(show.buttons, vec![("test:pressed".to_owned(), "It works".to_owned())]);
    }

    fn waiting(key: &str, project: Option<&str>) -> Notice {
        Notice::new(key, "claude-code".into(), "Claude is waiting for your input".into(), project.map(str::to_owned), 0)
            .unwrap()
    }

    #[test]
    fn a_notice_names_the_project_replaces_itself_and_goes_when_cleared() {
        let mut planner = Planner::new(false, 30);
        let first = planner.notice(&waiting("claude-code:a", Some("/home/ada/shop")));
        let [Command::Show(show)] = first.as_slice() else { panic!("{first:?}") };
        assert_eq!(show.summary, "claude-code waits in shop");
        assert_eq!(show.body, "Claude is waiting for your input");
        assert!(show.buttons.is_empty() && !show.opens);
        let mut later = waiting("claude-code:a", Some("/home/ada/shop"));
        later.message = "Claude needs your permission to use Bash".into();
        later.posted_at_ms = 60_000;
        let again = planner.notice(&later);
        assert_eq!(shows(&again), vec![show.key.clone()], "the same notification is replaced");
        let other = planner.notice(&waiting("claude-code:b", None));
        assert_ne!(shows(&other), vec![show.key.clone()]);
        assert_eq!(closes(&planner.notice_cleared("claude-code:a")), vec![show.key.clone()]);
        assert!(planner.notice_cleared("claude-code:a").is_empty(), "only once");
        assert!(planner.tick(1_000 * 60_000).is_empty(), "notices are not reminded of");
        for n in 1..=5 {
            assert_eq!(shows(&planner.pending(&yes_no(n), 0)).len(), 1, "notices do not count towards a burst");
            planner.resolved(yes_no(n).request_id);
        }
    }

    #[test]
    fn a_thousand_notices_in_five_seconds_become_a_handful_of_notifications() {
        let mut planner = Planner::new(false, 30);
        let mut notifications = 0;
        for n in 0..1_000 {
            let mut notice = waiting(&format!("claude-code:{n}"), Some("/home/ada/shop"));
            notice.posted_at_ms = n * 5;
            notifications += shows(&planner.notice(&notice)).len();
        }
        // Three shown one by one, then the summary (changed at most every five seconds).
        assert_eq!(notifications, 4, "{notifications} notifications");
        // One key posted 200 times a second changes its notification now and then.
        let mut planner = Planner::new(false, 30);
        let mut notifications = 0;
        for n in 0..1_000 {
            let mut notice = waiting("claude-code:a", None);
            notice.message = format!("Claude is waiting for your input ({n})");
            notice.posted_at_ms = n * 5;
            notifications += shows(&planner.notice(&notice)).len();
        }
        assert!((1..=3).contains(&notifications), "{notifications} notifications");
        // An approval asked in the middle of it all is still shown on its own.
        assert_eq!(shows(&planner.pending(&yes_no(1), 5_000)), vec![Key::Question(yes_no(1).request_id)]);
    }

    #[test]
    fn do_not_disturb_withdraws_notices_and_keeps_new_ones_quiet() {
        let mut planner = Planner::new(false, 30);
        let shown = shows(&planner.notice(&waiting("claude-code:a", None)));
        assert_eq!(closes(&planner.set_dnd(true)), shown);
        assert!(planner.notice(&waiting("claude-code:b", None)).is_empty());
        assert!(planner.notice_cleared("claude-code:b").is_empty());
        planner.set_dnd(false);
        assert_eq!(shows(&planner.notice(&waiting("claude-code:a", None))).len(), 1);
    }

    #[test]
    fn do_not_disturb_silences_everything_and_withdraws_what_shows() {
        let mut planner = Planner::new(false, 30);
        planner.pending(&yes_no(1), 0);
        assert_eq!(closes(&planner.set_dnd(true)), vec![Key::Question(yes_no(1).request_id)]);
        assert!(planner.pending(&yes_no(2), 10).is_empty());
        assert!(planner.tick(100 * 60_000).is_empty());
        planner.set_dnd(false);
        assert_eq!(planner.tick(100 * 60_000).len(), 2, "reminders resume for what still waits");
    }
}
