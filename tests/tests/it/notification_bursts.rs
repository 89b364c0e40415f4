//! Bursts of approvals end to end, in the real app on a private session bus with dunst: an agent
//! that asks many things at once in one project gets one notification that counts them and
//! opens the inbox, in place of the ones it showed on their own; another agent's burst is
//! counted apart; an agent that asks once keeps its own notification with its buttons; and a
//! burst counts down as its approvals go, withdrawn with the last.

use beckon_e2e::{App, Bus, Failure, Home, Notifications, gateway};
use serde_json::{Value, json};

/// An approval from `agent`, working in `project`, to run the `n`th command.
fn approval(agent: &str, project: &str, n: usize) -> Value {
    json!({"agent": agent, "approval": {"tool_name": "Bash", "input": {"command": format!("make test-{n}")},
        "project": project}})
}

#[tokio::test]
async fn bursts_of_approvals_are_counted_per_agent_and_project() -> Result<(), Failure> {
    let home = Home::new()?;
    let mut bus = Bus::start()?;
    bus.start_notification_daemon(&home).await?;
    let notifications = Notifications::record(&bus).await?;
    let app = App::launch_on(&home, bus).await?;

    // One question from an agent that asks once (it also waits for the gateway to be up).
    gateway::ask(&home, "deploy-bot", "Deploy build 7?").await?;
    // Then, within the five-second window: six approvals from one agent, four from another.
    let mut asked = Vec::new();
    for n in 0..6 {
        asked.push(gateway::create(&home, &approval("claude-code", "/home/ada/shop", n)).await?);
        if n < 4 {
            gateway::create(&home, &approval("opencode", "/home/ada/shop", n)).await?;
        }
    }

    let claude = notifications
        .wait_for("claude-code's burst", |n| n.summary == "claude-code in shop: 6 approvals waiting")
        .await?;
    assert_eq!(claude.body, "Open the inbox to answer them.");
    assert_eq!(claude.actions, vec![("default".to_owned(), "Open".to_owned())]);
    let opencode =
        notifications.wait_for("opencode's burst", |n| n.summary == "opencode in shop: 4 approvals waiting").await?;
    assert_eq!(opencode.actions, vec![("default".to_owned(), "Open".to_owned())]);
    assert_ne!(claude.id, opencode.id, "each agent's burst is its own notification");

    // The approvals shown on their own before their agent's burst began are withdrawn.
    let (all, _) = notifications.seen();
    let singles: Vec<u32> = all.iter().filter(|n| n.summary.ends_with("asks: Bash")).filter_map(|n| n.id).collect();
    assert!(!singles.is_empty(), "the first approvals showed on their own: {all:?}");
    for id in singles {
        notifications.wait_for_close(id).await?;
    }
    // The agent that asked once keeps its notification and its buttons, never withdrawn.
    let single = all.iter().find(|n| n.body == "Deploy build 7?").ok_or("deploy-bot's notification")?;
    let labels: Vec<&str> = single.actions.iter().map(|(_, label)| label.as_str()).collect();
    assert_eq!(labels, ["Open", "Yes", "No"]);
    assert!(!notifications.seen().1.contains(&single.id.ok_or("no id")?), "deploy-bot's was withdrawn");

    // The burst counts down as its approvals go, and goes with the last.
    let (last, rest) = asked.split_last().ok_or("nothing asked")?;
    for id in rest {
        gateway::cancel(&home, id, "the agent went on").await?;
    }
    notifications
        .wait_for("claude-code's burst, counted down", |n| n.summary == "claude-code in shop: 1 approval waiting")
        .await?;
    gateway::cancel(&home, last, "the agent went on").await?;
    notifications.wait_for_close(claude.id.ok_or("no id")?).await?;

    // Open on the other burst brings the window to the inbox.
    app.eval("window.location.hash = '#/new'; return null").await?;
    app.wait_for_place("#/new").await?;
    app.bus()?.daemon_action(opencode.id.ok_or("no id")?, "default")?;
    app.wait_for_place("#/inbox").await?;
    app.quit().await
}
