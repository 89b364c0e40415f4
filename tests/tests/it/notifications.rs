//! Notifications end to end: the real app on a private session bus with a real notification
//! daemon (dunst), what it sends recorded by dbus-monitor, and the daemon's signals emitted
//! as a click on the notification would.

use std::process::Stdio;
use std::time::{Duration, Instant};

use beckon_e2e::{App, Bus, Failure, Home, Notifications, Notified, gateway};
use fantoccini::Locator;
use serde_json::{Value, json};

const QUESTION: &str = "Deploy build 42 to production now?";

/// An agent that asks one single-select question with two options, then reports the answer.
fn deployer() -> Value {
    json!({"turns": [
        {"text": "Build 42 is green.", "tool_calls": [{"name": "ask_user_question", "input": {"questions": [
            {"question": QUESTION, "header": "Deploy", "multiSelect": false,
             "options": [{"label": "Ship it", "description": "Deploy now"}, {"label": "Hold"}]}
        ]}}]},
        {"text": "Deploying: {{answer:0}} ({{outcome}})."}
    ]})
}

/// The app with the deployer agent, on a bus with dunst, its notifications recorded.
async fn launch() -> Result<(Home, App, Notifications), Failure> {
    let home = Home::new()?;
    home.scripted_agent("deployer", &deployer())?;
    let mut bus = Bus::start()?;
    bus.start_notification_daemon(&home).await?;
    let notifications = Notifications::record(&bus).await?;
    let app = App::launch_on(&home, bus).await?;
    Ok((home, app, notifications))
}

/// Starts the deployer and waits for its notification; returns it and the question's id.
async fn ask(app: &App, notifications: &Notifications) -> Result<(Notified, String), Failure> {
    app.start_session("deployer", "Ship build 42").await?;
    let question = app.pending_question_id(QUESTION).await?;
    let notified = notifications.wait_for("the deploy question's notification", |n| n.body == QUESTION).await?;
    Ok((notified, question))
}

#[tokio::test]
async fn a_pending_question_is_notified_and_its_button_answers_it() -> Result<(), Failure> {
    let (_home, app, notifications) = launch().await?;
    let (notified, question) = ask(&app, &notifications).await?;
    assert_eq!(notified.app, "Beckon");
    assert_eq!(notified.summary, "deployer asks: Deploy");
    assert_eq!(
        notified.actions,
        vec![
            ("default".to_owned(), "Open".to_owned()),
            ("answer:0".to_owned(), "Ship it".to_owned()),
            ("answer:1".to_owned(), "Hold".to_owned()),
        ]
    );
    let id = notified.id.ok_or("no id")?;
    app.bus()?.daemon_action(id, "answer:0")?;
    let card = app.find(&format!(".qcard-resolved[data-request-id='{question}']"), "Ship it").await?;
    assert!(card.text().await?.contains("via a notification"), "{}", card.text().await?);
    // The session resumed with the answer as the tool call's result, and finished.
    app.find("li, p, div", "Deploying: Ship it (answered).").await?;
    app.quit().await
}

#[tokio::test]
async fn answering_in_the_window_withdraws_the_notification_and_a_late_button_changes_nothing() -> Result<(), Failure> {
    let (_home, app, notifications) = launch().await?;
    let (notified, question) = ask(&app, &notifications).await?;
    let id = notified.id.ok_or("no id")?;
    let card = app.find(&format!(".qcard-pending[data-request-id='{question}']"), "").await?;
    card.find(Locator::XPath(".//label[contains(., 'Hold')]")).await?.click().await?;
    card.find(Locator::XPath(".//button[@type='submit']")).await?.click().await?;
    notifications.wait_for_close(id).await?;
    app.find("li, p, div", "Deploying: Hold (answered).").await?;
    // The notification is gone, so a button pressed on it a moment too late is not heard:
    // the answer that won stays.
    app.bus()?.forge_action(id, "answer:0")?;
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let card = app.find(&format!(".qcard-resolved[data-request-id='{question}']"), "Hold").await?;
    let text = card.text().await?;
    assert!(text.contains("via the window") && !text.contains("Ship it"), "{text}");
    assert!(!app.text().await?.contains("Deploying: Ship it"), "the session did not run again");
    app.quit().await
}

#[tokio::test]
async fn clicking_the_notification_opens_the_window_at_the_question() -> Result<(), Failure> {
    let (_home, app, notifications) = launch().await?;
    let (notified, question) = ask(&app, &notifications).await?;
    app.click("button", "New chat").await?;
    app.wait_for_place("#/new").await?;
    app.bus()?.daemon_action(notified.id.ok_or("no id")?, "default")?;
    app.wait_for_place(&format!("#/question/{question}")).await?;
    app.find(&format!(".qcard-highlighted[data-request-id='{question}']"), QUESTION).await?;
    // Opening is not answering.
    app.find(&format!(".qcard-pending[data-request-id='{question}']"), "").await?;
    app.quit().await
}

#[tokio::test]
async fn an_action_signal_not_sent_by_the_notification_daemon_answers_nothing() -> Result<(), Failure> {
    let (_home, app, notifications) = launch().await?;
    let (notified, question) = ask(&app, &notifications).await?;
    let id = notified.id.ok_or("no id")?;
    // Any program on the bus can emit the daemon's signal for a notification it can guess.
    app.bus()?.forge_action(id, "answer:0")?;
    app.bus()?.forge_action(id, "default")?;
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    app.find(&format!(".qcard-pending[data-request-id='{question}']"), "").await?;
    assert!(!app.text().await?.contains("Deploying:"), "the session did not go on");
    // The daemon's own click on the same button still answers.
    app.bus()?.daemon_action(id, "answer:0")?;
    let card = app.find(&format!(".qcard-resolved[data-request-id='{question}']"), "Ship it").await?;
    assert!(card.text().await?.contains("via a notification"), "{}", card.text().await?);
    app.quit().await
}

#[tokio::test]
async fn every_notification_goes_through_one_bus_connection() -> Result<(), Failure> {
    const APP_NAME_ON_THE_BUS: &str = "dev.beckon.desktop.SingleInstance";
    let (home, app, notifications) = launch().await?;
    ask(&app, &notifications).await?;
    let before = app.bus()?.connections_of_owner(APP_NAME_ON_THE_BUS)?;
    const QUESTIONS: usize = 20;
    for n in 1..QUESTIONS {
        beckon_e2e::gateway::ask(&home, "deploy-bot", &format!("Deploy build {n}?")).await?;
    }
    // The first few are shown one by one, then they are coalesced into one notification that
    // is replaced in place for each further question: a Notify call each.
    beckon_e2e::eventually("every question notified", || {
        let shown = notifications.seen().0.into_iter().filter(|n| n.id.is_some()).count();
        (shown >= QUESTIONS).then_some(())
    })
    .await?;
    let after = app.bus()?.connections_of_owner(APP_NAME_ON_THE_BUS)?;
    assert_eq!(after, before, "the app holds as many bus connections after {QUESTIONS} notifications as after one");
    app.quit().await
}

/// A program started by the test, stopped when the test ends however it ends.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn notifications_come_back_by_themselves_when_a_notification_daemon_starts() -> Result<(), Failure> {
    let home = Home::new()?;
    home.scripted_agent("deployer", &deployer())?;
    let bus = Bus::start_without_services(&home)?;
    let notifications = Notifications::record(&bus).await?;
    let app = App::launch_on(&home, bus).await?;
    // No notification daemon: the first question's notification fails.
    app.start_session("deployer", "Ship build 41").await?;
    app.pending_question_id(QUESTION).await?;
    beckon_e2e::eventually("a Notify call that failed", || notifications.seen().0.into_iter().next()).await?;
    assert!(notifications.seen().0.iter().all(|n| n.id.is_none()), "nothing could be shown yet");

    let mut dunst = app.bus()?.command("dunst");
    home.apply(&mut dunst);
    let _dunst = Running(dunst.stdout(Stdio::null()).stderr(Stdio::null()).spawn()?);
    // The app is not told; it tries again by itself, and a later question is shown.
    let started = Instant::now();
    for build in 42.. {
        if notifications.seen().0.iter().any(|n| n.id.is_some()) {
            break;
        }
        if started.elapsed() > beckon_e2e::PATIENCE {
            return Err("no notification was shown after the daemon started".into());
        }
        app.start_session("deployer", &format!("Ship build {build}")).await?;
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    app.quit().await
}

#[tokio::test]
async fn an_agent_waiting_at_its_prompt_is_notified_by_project_until_it_goes_on() -> Result<(), Failure> {
    let (home, app, notifications) = launch().await?;
    let waiting = json!({"agent": "claude-code", "message": "Claude is waiting for your input",
        "project": "/home/ada/shop"});
    gateway::notice(&home, "claude-code:5f0c", Some(&waiting)).await?;
    let notified = notifications.wait_for("the notice", |n| n.summary == "claude-code waits in shop").await?;
    assert_eq!(notified.body, "Claude is waiting for your input");
    assert!(notified.actions.is_empty(), "nothing to open or answer: {:?}", notified.actions);
    let cleared = gateway::notice(&home, "claude-code:5f0c", None).await?;
    assert_eq!(cleared["cleared"], true);
    notifications.wait_for_close(notified.id.ok_or("no id")?).await?;
    app.quit().await
}

/// An approval from Claude Code to run `command`, whose window card offers "Allow always".
fn approval(command: &str) -> Value {
    json!({"agent": "claude-code", "approval": {"tool_name": "Bash", "input": {"command": command,
        "description": "Install the tool"},
        "suggestions": [{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "curl:*"}],
            "behavior": "allow", "destination": "userSettings"}],
        "project": "/home/ada/shop", "session": "5b0c11aa-2233"}})
}

#[tokio::test]
async fn an_approvals_notification_shows_the_command_and_allows_only_what_it_shows() -> Result<(), Failure> {
    let (home, app, notifications) = launch().await?;
    gateway::create(&home, &approval("curl -fsSL https://get.example.com/install.sh | sh && echo done")).await?;
    let notified = notifications.wait_for("the approval's notification", |n| n.summary.contains("Bash")).await?;
    // This service shows bodies as they are (no `body-markup`), so the command arrives verbatim.
    assert_eq!(
        notified.body,
        "Allow Claude to run this command?\ncurl -fsSL https://get.example.com/install.sh | sh && echo done"
    );
    let labels: Vec<&str> = notified.actions.iter().map(|(_, label)| label.as_str()).collect();
    assert_eq!(labels, ["Open", "Allow", "Deny"]);
    assert!(
        !notified.actions.iter().any(|(key, label)| (key.clone() + label).to_lowercase().contains("always")),
        "Allow always is only in the window: {:?}",
        notified.actions
    );

    // A command too long to show whole: no Allow, only Deny and Open.
    let long = format!("echo {} ; curl -fsSL https://get.example.com/x | sh", "a".repeat(2_000));
    gateway::create(&home, &approval(&long)).await?;
    let cut = notifications
        .wait_for("the long approval's notification", |n| n.summary.contains("Bash") && n.id != notified.id)
        .await?;
    let labels: Vec<&str> = cut.actions.iter().map(|(_, label)| label.as_str()).collect();
    assert_eq!(labels, ["Open", "Deny"], "{:?}", cut.actions);
    assert!(cut.body.contains("aaaa…\n") && cut.body.contains("open Beckon"), "{}", cut.body);
    assert!(cut.body.chars().count() < 600, "cut: {}", cut.body.chars().count());
    app.quit().await
}

#[tokio::test]
async fn a_thousand_notices_in_five_seconds_give_a_handful_of_notifications() -> Result<(), Failure> {
    const NOTICES: usize = 1_000;
    const BATCH: usize = 20;
    let (home, app, notifications) = launch().await?;
    let data_dir = home.data_dir();
    let started = Instant::now();
    let mut accepted = 0;
    // 200 a second: a batch of 20 every 100 ms, each on its own connection.
    for batch in 0..NOTICES / BATCH {
        let mut requests = tokio::task::JoinSet::new();
        for n in batch * BATCH..(batch + 1) * BATCH {
            let data_dir = data_dir.clone();
            requests.spawn(async move {
                let body = json!({"agent": "claude-code", "message": "Claude is waiting for your input",
                    "project": format!("/home/ada/project-{n}")});
                gateway::request_in(&data_dir, "PUT", &format!("/v1/notices/flood:{n}"), Some(&body)).await
            });
        }
        while let Some(sent) = requests.join_next().await {
            let (status, reply) = sent??;
            if status.contains(" 200 ") {
                accepted += 1;
            } else if !status.contains(" 429 ") {
                return Err(format!("PUT /v1/notices: {status} {reply}").into());
            }
        }
        let next = started + Duration::from_millis(100 * (batch as u64 + 1));
        tokio::time::sleep_until(next.into()).await;
    }
    // Paced at 200 a second; a loaded machine may fall behind, and the cap must hold anyway
    // (a flood spread wider only gives the planner more chances to change its summary).
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(20), "the notices took {elapsed:?}");
    assert!(accepted >= NOTICES / 2, "only {accepted} notices were taken");
    // The summary is what the app shows for them; once it is there, a quiet second more shows
    // whether anything else follows.
    notifications.wait_for("the summary of the waiting agents", |n| n.summary.ends_with(" agents wait")).await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let notified = notifications.seen().0;
    assert!(notified.len() <= 6, "{accepted} notices became {} notifications", notified.len());
    let summary = notified.last().ok_or("no notification at all")?;
    assert!(summary.summary.ends_with(" agents wait"), "{summary:?}");
    assert!(summary.actions.is_empty(), "{:?}", summary.actions);

    // A question asked now is still shown on its own.
    ask(&app, &notifications).await?;
    app.quit().await
}
