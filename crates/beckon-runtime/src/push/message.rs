//! What a device is sent for the questions it is owed — decided without I/O. Each question is
//! a notification of its own, worded as the desktop's (see [`beckon_core::notification`]):
//! Allow only when the whole call is shown. More than [`BURST_LIMIT`] from one agent in one
//! project at once become one push that counts them and opens the inbox, as on the desktop.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use beckon_api::{PushAction, PushMessage};
use beckon_core::notification::{self, BURST_LIMIT, Group, burst_body, cut};
use beckon_core::{QuestionItem, RequestId};
use beckon_store::QuestionRecord;
use sha2::{Digest, Sha256};

/// The most a push's message may take, in bytes: a push service takes 4,096 bytes of body, of
/// which RFC 8291's header (86), the padding delimiter and the tag (17) are not the message.
pub(crate) const MAX_MESSAGE_BYTES: usize = 3_993;
/// The body a message too long to send is cut to, in characters.
const SHORT_BODY_CHARS: usize = 200;
/// RFC 8030's `Topic`: at most 32 characters of base64url.
const TOPIC_CHARS: usize = 32;

/// One push: the message, the questions it stands for, and its topic (a push service keeps
/// only the newest undelivered push of a topic, so a push sent again replaces its copy).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Push {
    pub(crate) message: PushMessage,
    pub(crate) request_ids: Vec<RequestId>,
    pub(crate) topic: String,
}

impl Push {
    /// The message as sent: JSON, within [`MAX_MESSAGE_BYTES`].
    pub(crate) fn body(&self) -> Vec<u8> {
        let body = serde_json::to_vec(&self.message).unwrap_or_default();
        if body.len() <= MAX_MESSAGE_BYTES {
            return body;
        }
        // Too long to push whole: a shorter body and no buttons (nothing is allowed that is not
        // shown), which opens the question.
        let mut short = self.message.clone();
        match &mut short {
            PushMessage::Question { body, actions, .. } => {
                *body = cut(body, SHORT_BODY_CHARS);
                actions.clear();
            }
            PushMessage::Waiting { body, .. } => *body = cut(body, SHORT_BODY_CHARS),
        }
        serde_json::to_vec(&short).unwrap_or_default()
    }
}

/// A topic for `tag`: its SHA-256, base64url, cut to 32 characters.
fn topic(tag: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(tag.as_bytes())).chars().take(TOPIC_CHARS).collect()
}

/// The pushes for `questions` (oldest first), to one device.
pub(crate) fn plan(questions: &[QuestionRecord]) -> Vec<Push> {
    let mut groups: Vec<(Group, Vec<&QuestionRecord>)> = Vec::new();
    for question in questions {
        let group = Group::asking(&question.agent, &question.request);
        match groups.iter_mut().find(|(known, _)| *known == group) {
            Some((_, members)) => members.push(question),
            None => groups.push((group, vec![question])),
        }
    }
    let mut pushes = Vec::new();
    for (group, members) in groups {
        if members.len() > BURST_LIMIT {
            pushes.push(burst(&group, &members));
        } else {
            pushes.extend(members.into_iter().map(one));
        }
    }
    pushes
}

fn one(question: &QuestionRecord) -> Push {
    let shown = notification::question(&question.origin.to_string(), &question.request);
    let options = match question.request.items() {
        [QuestionItem::Choice(choice)] => choice.options.as_slice(),
        _ => &[],
    };
    let actions = shown
        .buttons
        .into_iter()
        .filter_map(|(action, title)| {
            let index: usize = action.strip_prefix("answer:")?.parse().ok()?;
            let label = options.get(index)?.label.clone();
            Some(PushAction { action, title, label })
        })
        .collect();
    let request_id = question.id.to_string();
    Push {
        topic: topic(&request_id),
        message: PushMessage::Question { request_id, title: shown.title, body: shown.body, actions },
        request_ids: vec![question.id],
    }
}

fn burst(group: &Group, members: &[&QuestionRecord]) -> Push {
    let approvals = members.iter().filter(|q| q.request.approval().is_some()).count();
    let tag = format!("burst:{}", topic(&format!("{}\n{}", group.agent, group.project.as_deref().unwrap_or(""))));
    Push {
        topic: topic(&tag),
        message: PushMessage::Waiting {
            title: group.burst_title(approvals, members.len() - approvals),
            body: burst_body(members.len()).to_owned(),
            tag,
        },
        request_ids: members.iter().map(|q| q.id).collect(),
    }
}

#[cfg(test)]
mod tests {
    use beckon_core::QuestionRequest;
    use serde_json::json;

    use super::*;

    fn id(n: u128) -> RequestId {
        RequestId::from_uuid(uuid::Uuid::from_u128(n))
    }

    fn record(n: u128, agent: &str, request: QuestionRequest) -> QuestionRecord {
        let session = beckon_core::SessionId::from_uuid(uuid::Uuid::from_u128(n));
        let question = json!({
            "id": id(n), "session_id": session, "tool_use_id": "t",
            "agent": agent, "origin": [agent], "request": request, "status": "pending", "created_at_ms": n as i64,
        });
        serde_json::from_value(question).unwrap()
    }

    fn asked(n: u128, agent: &str, options: &[&str]) -> QuestionRecord {
        let options: Vec<_> = options.iter().map(|label| json!({"label": label})).collect();
        let request = json!({"questions": [{"question": "Which way?", "header": "Route", "options": options, "multiSelect": false}]});
        record(n, agent, QuestionRequest::parse(&request).unwrap())
    }

    fn approval(n: u128, command: &str) -> QuestionRecord {
        let approval = beckon_core::Approval::parse(
            &json!({"tool_name": "Bash", "input": {"command": command}, "project": "/home/ada/shop"}),
            "",
        )
        .unwrap();
        record(n, "claude-code", QuestionRequest::for_approval(approval))
    }

    fn actions(push: &Push) -> Vec<(&str, &str)> {
        match &push.message {
            PushMessage::Question { actions, .. } => {
                actions.iter().map(|a| (a.action.as_str(), a.label.as_str())).collect()
            }
            PushMessage::Waiting { .. } => vec![],
        }
    }

    #[test]
    fn a_question_is_pushed_as_the_desktop_shows_it_with_its_options() {
        let pushes = plan(&[asked(1, "deploy", &["North", "South"])]);
        assert_eq!(pushes.len(), 1);
        let PushMessage::Question { request_id, title, body, .. } = &pushes[0].message else { panic!() };
        assert_eq!(request_id, &id(1).to_string());
        assert_eq!((title.as_str(), body.as_str()), ("deploy asks: Route", "Which way?"));
        assert_eq!(actions(&pushes[0]), [("answer:0", "North"), ("answer:1", "South")]);
        assert_eq!(pushes[0].topic.len(), 32);
        assert!(pushes[0].topic.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        assert!(actions(&plan(&[asked(2, "deploy", &["a", "b", "c", "d"])])[0]).is_empty(), "four: none");
    }

    #[test]
    fn an_approval_offers_allow_only_when_its_whole_command_is_shown() {
        let shown = plan(&[approval(1, "make deploy")]);
        assert_eq!(actions(&shown[0]), [("answer:0", "Allow"), ("answer:1", "Deny")]);
        let long = format!("make deploy {}", "x".repeat(1_000));
        assert_eq!(actions(&plan(&[approval(2, &long)])[0]), [("answer:1", "Deny")], "cut: Deny only");
    }

    #[test]
    fn more_than_three_from_one_agent_and_project_are_counted_in_one_push() {
        let mut questions: Vec<_> = (1..=5).map(|n| approval(n, "make test")).collect();
        questions.push(asked(6, "deploy", &["a", "b"]));
        let pushes = plan(&questions);
        assert_eq!(pushes.len(), 2, "one count for claude-code, deploy's own");
        let PushMessage::Waiting { title, body, tag } = &pushes[0].message else { panic!("{pushes:?}") };
        assert_eq!(title, "claude-code in shop: 5 approvals waiting");
        assert_eq!(body, "Open the inbox to answer them.");
        assert_eq!(pushes[0].request_ids.len(), 5);
        // The same group counts under the same tag, so a later count replaces the notification.
        let again = plan(&(10..=13).map(|n| approval(n, "make lint")).collect::<Vec<_>>());
        assert!(matches!(&again[0].message, PushMessage::Waiting { tag: t, .. } if t == tag));
        assert_eq!(plan(&questions[..3]).len(), 3, "three are shown one by one");
    }

    #[test]
    fn a_message_too_long_to_push_is_cut_and_loses_its_buttons() {
        let mut push = plan(&[asked(1, "deploy", &["North", "South"])]).remove(0);
        assert!(push.body().len() < MAX_MESSAGE_BYTES);
        if let PushMessage::Question { body, .. } = &mut push.message {
            *body = "\"".repeat(MAX_MESSAGE_BYTES);
        }
        let sent: PushMessage = serde_json::from_slice(&push.body()).unwrap();
        let PushMessage::Question { body, actions, .. } = sent else { panic!() };
        assert_eq!(body.chars().count(), SHORT_BODY_CHARS);
        assert!(actions.is_empty());
        assert!(push.body().len() <= MAX_MESSAGE_BYTES);
    }
}
