//! The Slack channel against a fake Slack speaking the real wire formats: what a post holds,
//! how presses and forms arrive over Socket Mode, how messages end, how failures read, and
//! that the connection comes back after Slack recycles or drops it.

use std::sync::Arc;
use std::time::Duration;

use beckon_channels::slack::{Reply, Slack, SlackConfig};
use beckon_channels::{
    Action, Channel, Error, Heard, ItemAnswer, MessageRef, Person, Posting, Press, Response, Settled,
};
use beckon_core::{AnsweredVia, Approval, QuestionRequest, RequestId};
use beckon_store::QuestionStatus;
use beckon_testkit::fake_slack::{APP_TOKEN, BOT_TOKEN, CHANNEL, Failure, FakeSlack, StoredMessage};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

const ADA: (&str, &str) = ("U0ADA", "ada");

async fn start() -> (FakeSlack, Arc<Slack>) {
    let fake = FakeSlack::start().await;
    let slack = slack_with(&fake, BOT_TOKEN);
    (fake, slack)
}

fn slack_with(fake: &FakeSlack, bot_token: &str) -> Arc<Slack> {
    let config = SlackConfig {
        app_token: APP_TOKEN.into(),
        bot_token: bot_token.into(),
        person: Some(ADA.0.into()),
        channel: Some(CHANNEL.into()),
        api_base: fake.api_base(),
    };
    Arc::new(Slack::new(config, reqwest::Client::new()))
}

struct Listening {
    presses: mpsc::Receiver<Heard<Reply>>,
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl Listening {
    async fn next(&mut self) -> Press<Reply> {
        let heard = tokio::time::timeout(Duration::from_secs(10), self.presses.recv())
            .await
            .expect("no press arrived in time")
            .expect("listening ended");
        let Heard::Press(press) = heard else { panic!("not a press: {heard:?}") };
        press
    }

    async fn stop(self) {
        self.stop.cancel();
        tokio::time::timeout(Duration::from_secs(5), self.task).await.expect("listen did not stop").unwrap();
    }
}

async fn listen(fake: &FakeSlack, slack: &Arc<Slack>) -> Listening {
    let (sender, presses) = mpsc::channel(16);
    let stop = CancellationToken::new();
    let task = tokio::spawn(slack.clone().listen(sender, stop.clone()));
    fake.wait_connections(1).await;
    Listening { presses, stop, task }
}

fn request_id(n: u128) -> RequestId {
    RequestId::from_uuid(Uuid::from_u128(0x0190_f1d2_7a3b_7c4d_8e5f_0000_0000_0000 + n))
}

fn posting(n: u128, request: Value) -> Posting {
    Posting {
        request_id: request_id(n),
        asker: "<!channel> research › summariser".into(),
        request: QuestionRequest::parse(&request).unwrap(),
        created_at_ms: 0,
        to: None,
    }
}

fn database() -> Value {
    json!({"questions": [{"question": "Which database <b>?</b>", "header": "DB", "options": [
        {"label": "SQLite", "description": "one file"},
        {"label": "Postgres", "description": "a server & <@U1>"},
        {"label": "MySQL"}]}]})
}

fn areas() -> Value {
    json!({"questions": [{"question": "Which areas?", "header": "Areas", "multiSelect": true, "options": [
        {"label": "Auth"}, {"label": "Billing"}, {"label": "Search"}]}]})
}

fn buttons(message: &StoredMessage) -> Vec<(String, String)> {
    message
        .blocks
        .as_array()
        .unwrap()
        .iter()
        .filter(|block| block["type"] == "actions")
        .flat_map(|block| block["elements"].as_array().unwrap().clone())
        .map(|e| {
            (e["action_id"].as_str().unwrap().to_owned(), e["text"]["text"].as_str().unwrap_or_default().to_owned())
        })
        .collect()
}

fn has_inputs(blocks: &Value) -> bool {
    blocks.as_array().unwrap().iter().any(|block| matches!(block["type"].as_str(), Some("actions" | "input")))
}

#[tokio::test]
async fn a_post_holds_a_button_per_option_the_request_id_and_escaped_text() {
    let (fake, slack) = start().await;
    let posting = posting(1, database());
    let posted = slack.post(&posting).await.unwrap();

    let messages = fake.messages();
    assert_eq!(messages.len(), 1);
    let message = &messages[0];
    assert_eq!(posted, MessageRef { conversation: CHANNEL.into(), message: message.ts.clone() });
    let labels: Vec<String> = buttons(message).into_iter().map(|(_, label)| label).collect();
    assert_eq!(labels, ["SQLite", "Postgres", "MySQL", "Other…", "Comment…", "Skip"]);
    assert_eq!(message.metadata.as_ref().unwrap()["event_type"], "beckon_question");
    assert_eq!(message.metadata.as_ref().unwrap()["event_payload"]["request_id"], request_id(1).to_string());
    let shown = format!("{} {}", message.text, message.blocks);
    assert!(shown.contains("&lt;!channel&gt; research › summariser"), "{shown}");
    assert!(shown.contains("Which database &lt;b&gt;?&lt;/b&gt;"), "{shown}");
    assert!(shown.contains("a server &amp; &lt;@U1&gt;"), "{shown}");
    assert!(!shown.contains("<!channel>") && !shown.contains("<@U1>"), "{shown}");
}

#[tokio::test]
async fn an_approval_shows_its_preview_and_allow_deny() {
    let (fake, slack) = start().await;
    let approval = Approval::parse(&json!({"tool_name": "Bash", "input": {"command": "rm -rf <dir>"}}), "").unwrap();
    let posting = Posting {
        request_id: request_id(2),
        asker: "claude".into(),
        request: QuestionRequest::for_approval(approval),
        created_at_ms: 0,
        to: None,
    };
    slack.post(&posting).await.unwrap();
    let message = &fake.messages()[0];
    let labels: Vec<String> = buttons(message).into_iter().map(|(_, label)| label).collect();
    assert_eq!(labels, ["Allow", "Deny", "Other…", "Comment…", "Skip"]);
    assert!(message.blocks.to_string().contains("rm -rf &lt;dir&gt;"));
}

#[tokio::test]
async fn a_pressed_option_is_one_press_and_a_redelivery_is_acked_but_not_pressed_again() {
    let (fake, slack) = start().await;
    let posted = slack.post(&posting(1, database())).await.unwrap();
    let mut listening = listen(&fake, &slack).await;

    let envelope = fake.press_button(&posted.message, "beckon.option.1", ADA, json!({}));
    let envelope_id = envelope["envelope_id"].as_str().unwrap().to_owned();
    fake.send(&envelope);
    let press = listening.next().await;
    assert_eq!(press.request_id, request_id(1));
    assert_eq!(press.message, posted);
    assert_eq!(press.person, Person { id: "U0ADA".into(), name: Some("ada".into()) });
    assert_eq!(press.action, Action::Answer(vec![ItemAnswer { options: vec![1], ..ItemAnswer::default() }]));
    fake.wait_acks(&envelope_id, 1).await;

    // Slack redelivers (say the ack was late); then a different press follows.
    fake.send(&envelope);
    fake.wait_acks(&envelope_id, 2).await;
    let skip = fake.press_button(&posted.message, "beckon.skip", ADA, json!({}));
    fake.send(&skip);
    let next = listening.next().await;
    assert_eq!(next.action, Action::Decline, "the redelivered envelope made a second press");
    fake.wait_acks(skip["envelope_id"].as_str().unwrap(), 1).await;
    assert_eq!(fake.acks().len(), 3);
    listening.stop().await;
}

#[tokio::test]
async fn skip_declines() {
    let (fake, slack) = start().await;
    let posted = slack.post(&posting(1, database())).await.unwrap();
    let mut listening = listen(&fake, &slack).await;
    fake.send(&fake.press_button(&posted.message, "beckon.skip", ADA, json!({})));
    let press = listening.next().await;
    assert_eq!((press.request_id, press.action), (request_id(1), Action::Decline));
    listening.stop().await;
}

#[tokio::test]
async fn a_multi_select_submit_answers_the_ticked_options() {
    let (fake, slack) = start().await;
    let posted = slack.post(&posting(3, areas())).await.unwrap();
    let message = &fake.messages()[0];
    let ids: Vec<String> = buttons(message).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["beckon.pick.0", "beckon.submit", "beckon.form", "beckon.skip"]);

    let mut listening = listen(&fake, &slack).await;
    let state = json!({"beckon.pick.0": {"beckon.pick.0": {"type": "checkboxes", "selected_options": [
        {"text": {"type": "plain_text", "text": "Search"}, "value": "2"},
        {"text": {"type": "plain_text", "text": "Auth"}, "value": "0"}]}}});
    fake.send(&fake.press_button(&posted.message, "beckon.submit", ADA, state));
    let press = listening.next().await;
    assert_eq!(press.message, posted);
    assert_eq!(press.action, Action::Answer(vec![ItemAnswer { options: vec![0, 2], ..ItemAnswer::default() }]));

    // An option value that is not an index is refused: no press, the next one still comes.
    let forged =
        json!({"beckon.pick.0": {"beckon.pick.0": {"type": "checkboxes", "selected_options": [{"value": "../1"}]}}});
    fake.send(&fake.press_button(&posted.message, "beckon.submit", ADA, forged));
    fake.send(&fake.press_button(&posted.message, "beckon.skip", ADA, json!({})));
    assert_eq!(listening.next().await.action, Action::Decline);
    listening.stop().await;
}

#[tokio::test]
async fn other_opens_a_form_whose_submission_answers_with_text_and_comment() {
    let (fake, slack) = start().await;
    let posted = slack.post(&posting(4, database())).await.unwrap();
    let mut listening = listen(&fake, &slack).await;

    let press = fake.press_button(&posted.message, "beckon.other", ADA, json!({}));
    let trigger_id = press["payload"]["trigger_id"].as_str().unwrap().to_owned();
    fake.send(&press);
    let view = fake.wait_for("views.open", |r| r.views.first().cloned()).await;
    assert_eq!(view.trigger_id, trigger_id);
    let metadata = view.view["private_metadata"].as_str().unwrap();
    assert!(metadata.contains(&request_id(4).to_string()) && metadata.contains(&posted.message), "{metadata}");

    let values = json!({
        "beckon.text.0": {"beckon.text.0": {"type": "plain_text_input", "value": "CockroachDB"}},
        "beckon.note.0": {"beckon.note.0": {"type": "plain_text_input", "value": "we need the replication"}},
    });
    let submission = fake.submit_view(0, ADA, values);
    let envelope_id = submission["envelope_id"].as_str().unwrap().to_owned();
    fake.send(&submission);
    let press = listening.next().await;
    assert_eq!((press.request_id, &press.message), (request_id(4), &posted));
    let expected = ItemAnswer {
        options: vec![],
        other: Some("CockroachDB".into()),
        comment: Some("we need the replication".into()),
    };
    assert_eq!(press.action, Action::Answer(vec![expected]));
    fake.wait_acks(&envelope_id, 1).await;

    // A form has no response URL: what became of it goes as an ephemeral message.
    slack.respond(press.reply, &Response::Refused("Not answered: too long".into())).await.unwrap();
    let ephemeral = fake.wait_for("an ephemeral", |r| r.ephemerals.first().cloned()).await;
    assert_eq!((ephemeral.channel.as_deref(), ephemeral.user.as_deref()), (Some(CHANNEL), Some("U0ADA")));
    assert_eq!(ephemeral.text, "Not answered: too long");
    listening.stop().await;
}

#[tokio::test]
async fn comment_opens_a_form_with_the_options() {
    let (fake, slack) = start().await;
    let posted = slack.post(&posting(5, database())).await.unwrap();
    let mut listening = listen(&fake, &slack).await;
    fake.send(&fake.press_button(&posted.message, "beckon.comment", ADA, json!({})));
    let view = fake.wait_for("views.open", |r| r.views.first().cloned()).await;
    let select = view.view["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["element"]["type"] == "static_select")
        .cloned()
        .unwrap();
    assert_eq!(select["element"]["options"][1]["text"]["text"], "Postgres");

    let values = json!({
        "beckon.pick.0": {"beckon.pick.0": {"type": "static_select", "selected_option": {"value": "1"}}},
        "beckon.note.0": {"beckon.note.0": {"type": "plain_text_input", "value": "for now"}},
    });
    fake.send(&fake.submit_view(0, ADA, values));
    let press = listening.next().await;
    let expected = ItemAnswer { options: vec![1], other: None, comment: Some("for now".into()) };
    assert_eq!(press.action, Action::Answer(vec![expected]));
    listening.stop().await;
}

#[tokio::test]
async fn a_free_form_question_is_answered_in_a_form() {
    let (fake, slack) = start().await;
    let request = json!({"questions": [
        {"question": "How many replicas?", "schema": {"type": "integer", "minimum": 1}},
        {"question": "Which areas?", "multiSelect": true, "options": [{"label": "Auth"}, {"label": "Billing"}]}]});
    let posted = slack.post(&posting(6, request)).await.unwrap();
    let mut listening = listen(&fake, &slack).await;
    fake.send(&fake.press_button(&posted.message, "beckon.form", ADA, json!({})));
    fake.wait_for("views.open", |r| r.views.first().cloned()).await;
    let values = json!({
        "beckon.text.0": {"beckon.text.0": {"type": "plain_text_input", "value": "3"}},
        "beckon.pick.1": {"beckon.pick.1": {"type": "checkboxes", "selected_options": [{"value": "1"}]}},
    });
    fake.send(&fake.submit_view(0, ADA, values));
    let press = listening.next().await;
    assert_eq!(
        press.action,
        Action::Answer(vec![
            ItemAnswer { other: Some("3".into()), ..ItemAnswer::default() },
            ItemAnswer { options: vec![1], ..ItemAnswer::default() },
        ])
    );
    listening.stop().await;
}

#[tokio::test]
async fn settle_leaves_the_outcome_and_no_controls() {
    let (fake, slack) = start().await;
    let posting = posting(7, database());
    let posted = slack.post(&posting).await.unwrap();
    let settled = Settled {
        status: QuestionStatus::Answered,
        summary: "Postgres".into(),
        via: Some(AnsweredVia::Slack),
        by: Some("ada".into()),
    };
    slack.settle(&posted, &posting, &settled).await.unwrap();
    let message = &fake.messages()[0];
    assert_eq!(message.updates, 1);
    assert!(!has_inputs(&message.blocks), "{}", message.blocks);
    let shown = message.blocks.to_string();
    assert!(shown.contains("Answered: Postgres — by @ada via Slack"), "{shown}");
    assert!(shown.contains("Which database &lt;b&gt;?&lt;/b&gt;"), "{shown}");

    let expired =
        Settled { status: QuestionStatus::Expired, summary: "nobody answered in time".into(), via: None, by: None };
    slack.settle(&posted, &posting, &expired).await.unwrap();
    assert!(fake.messages()[0].blocks.to_string().contains("Expired: nobody answered in time"));
}

#[tokio::test]
async fn already_answered_is_told_at_the_response_url() {
    let (fake, slack) = start().await;
    let posted = slack.post(&posting(8, database())).await.unwrap();
    let mut listening = listen(&fake, &slack).await;
    fake.send(&fake.press_button(&posted.message, "beckon.option.0", ADA, json!({})));
    let press = listening.next().await;
    slack.respond(press.reply, &Response::AlreadyAnswered("Postgres".into())).await.unwrap();
    let ephemeral = fake.wait_for("a response", |r| r.ephemerals.first().cloned()).await;
    assert!(ephemeral.response_url.is_some());
    assert_eq!(ephemeral.text, "already answered: Postgres");
    assert_eq!(ephemeral.body["response_type"], "ephemeral");
    assert_eq!(ephemeral.body["replace_original"], false);

    // An accepted answer needs no reply: the message itself will show it.
    fake.send(&fake.press_button(&posted.message, "beckon.option.0", ADA, json!({})));
    let press = listening.next().await;
    slack.respond(press.reply, &Response::Accepted).await.unwrap();
    assert_eq!(fake.ephemerals().len(), 1);
    listening.stop().await;
}

#[tokio::test]
async fn find_posted_finds_the_post_after_the_mark_and_not_one_before() {
    let (fake, slack) = start().await;
    let now = || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let early = posting(9, database());
    slack.post(&early).await.unwrap();
    // A mark taken well after the first post does not reach back to it.
    let later_mark = slack.mark(&early, now() + 60_000).await.unwrap();
    assert_eq!(slack.find_posted(&early, &later_mark).await.unwrap(), None);

    let lost = posting(10, database());
    let mark = slack.mark(&lost, now()).await.unwrap();
    let posted = slack.post(&lost).await.unwrap();
    for n in 11..14 {
        slack.post(&posting(n, database())).await.unwrap();
    }
    assert_eq!(slack.find_posted(&lost, &mark).await.unwrap(), Some(posted));
    assert_eq!(slack.find_posted(&posting(99, database()), &mark).await.unwrap(), None);
    assert!(fake.calls().contains(&"conversations.history".to_owned()));
}

#[tokio::test]
async fn find_posted_reads_the_direct_messages_when_the_target_is_a_person() {
    let fake = FakeSlack::start().await;
    let config = SlackConfig {
        app_token: APP_TOKEN.into(),
        bot_token: BOT_TOKEN.into(),
        person: Some("U0ADA".into()),
        channel: None,
        api_base: fake.api_base(),
    };
    let slack = Slack::new(config, reqwest::Client::new());
    let posting = posting(17, database());
    let mark = slack.mark(&posting, 0).await.unwrap();
    let posted = slack.post(&posting).await.unwrap();
    assert_eq!(posted.conversation, "D0ADA");
    assert_eq!(slack.find_posted(&posting, &mark).await.unwrap(), Some(posted));
}

#[tokio::test]
async fn an_oversized_frame_is_dropped_and_the_connection_goes_on() {
    let (fake, slack) = start().await;
    let posted = slack.post(&posting(18, database())).await.unwrap();
    let mut listening = listen(&fake, &slack).await;
    let mut huge = fake.press_button(&posted.message, "beckon.option.0", ADA, json!({}));
    huge["payload"]["padding"] = json!("x".repeat(300 * 1024));
    fake.send(&huge);
    let skip = fake.press_button(&posted.message, "beckon.skip", ADA, json!({}));
    fake.send(&skip);
    assert_eq!(listening.next().await.action, Action::Decline);
    fake.wait_acks(skip["envelope_id"].as_str().unwrap(), 1).await;
    assert_eq!(fake.acks().len(), 1, "the oversized envelope was read");
    assert_eq!(fake.connections(), 1);
    listening.stop().await;
}

#[tokio::test]
async fn a_disconnect_and_a_dropped_socket_reconnect_and_presses_still_arrive() {
    let (fake, slack) = start().await;
    let posted = slack.post(&posting(15, database())).await.unwrap();
    let mut listening = listen(&fake, &slack).await;

    fake.send_disconnect("refresh_requested");
    fake.wait_connections(2).await;
    fake.send(&fake.press_button(&posted.message, "beckon.option.2", ADA, json!({})));
    let press = listening.next().await;
    assert_eq!(press.action, Action::Answer(vec![ItemAnswer { options: vec![2], ..ItemAnswer::default() }]));

    fake.drop_socket();
    fake.wait_connections(3).await;
    fake.send(&fake.press_button(&posted.message, "beckon.skip", ADA, json!({})));
    assert_eq!(listening.next().await.action, Action::Decline);
    listening.stop().await;
}

#[tokio::test]
async fn listening_ends_when_nobody_takes_presses() {
    let (fake, slack) = start().await;
    let (sender, presses) = mpsc::channel(1);
    let task = tokio::spawn(slack.clone().listen(sender, CancellationToken::new()));
    fake.wait_connections(1).await;
    drop(presses);
    tokio::time::timeout(Duration::from_secs(5), task).await.expect("listen went on").unwrap();
}

#[tokio::test]
async fn tokens_never_show_in_debug_output() {
    let (_fake, slack) = start().await;
    let shown = format!("{slack:?}");
    assert!(!shown.contains(APP_TOKEN) && !shown.contains(BOT_TOKEN), "{shown}");
    assert!(!shown.contains("s3cr3t"), "{shown}");
}

#[tokio::test]
async fn failures_read_as_rate_limits_outages_and_refusals() {
    let (fake, slack) = start().await;
    let posting = posting(16, database());

    fake.fail_next(Failure::RateLimited { retry_after_secs: 7 });
    match slack.post(&posting).await {
        Err(Error::RateLimited { retry_after_ms, .. }) => assert_eq!(retry_after_ms, 7_000),
        other => panic!("expected a rate limit, got {other:?}"),
    }
    fake.fail_next(Failure::Status500);
    let outage = slack.post(&posting).await.unwrap_err();
    assert!(matches!(outage, Error::Unreachable { .. }) && outage.is_transient(), "{outage:?}");

    let wrong = slack_with(&fake, "xoxb-wrong");
    let refused = wrong.post(&posting).await.unwrap_err();
    assert!(matches!(&refused, Error::Refused { method: "chat.postMessage", detail, .. } if detail == "invalid_auth"));
    assert!(!refused.to_string().contains("xoxb"), "{refused}");
    assert!(fake.messages().is_empty());
}
