//! Approvals in the real app: a tool call waiting for permission shows as its own card with its
//! diff, can be allowed with an edited command, and a notification's Allow button answers it.

use beckon_e2e::{App, Bus, Failure, Home, Notifications, gateway, screenshot_path};
use serde_json::{Value, json};

fn approval(tool: &str, input: Value, suggestions: Value) -> Value {
    json!({"agent": "claude-code", "approval": {"tool_name": tool, "input": input, "suggestions": suggestions,
        "project": "/home/ada/shop", "session": "5b0c11aa-2233"}})
}

/// The question once it is no longer pending.
async fn resolved(home: &Home, id: &str) -> Result<Value, Failure> {
    let started = std::time::Instant::now();
    loop {
        let view = gateway::question(home, id).await?;
        if view["status"] != "pending" {
            return Ok(view);
        }
        if started.elapsed() > std::time::Duration::from_secs(30) {
            return Err(format!("question {id} stayed pending").into());
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn an_edit_shows_as_a_diff_and_a_command_is_allowed_as_edited() -> Result<(), Failure> {
    let home = Home::new()?;
    let app = App::launch(&home).await?;
    let edit = approval(
        "Edit",
        json!({"file_path": "src/pay.rs", "old_string": "let fee = 2;\nlet tax = 1;", "new_string": "let fee = 3;\nlet tax = 1;"}),
        json!([{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]),
    );
    let edit_id = gateway::create(&home, &edit).await?;
    let card =
        app.find(&format!(".qcard-pending[data-request-id='{edit_id}']"), "Allow Claude to edit src/pay.rs?").await?;
    let preview = app.find(&format!("[data-request-id='{edit_id}'] .approval-preview pre"), "- let fee = 2;").await?;
    assert!(preview.text().await?.contains("+ let fee = 3;"));
    assert!(
        card.text()
            .await?
            .contains("Allow always: Allow now, and switch to the acceptEdits permission mode for this session")
    );
    app.screenshot(&screenshot_path("approval.png")).await?;

    let bash = approval("Bash", json!({"command": "rm -rf build", "description": "Clean"}), json!([]));
    let bash_id = gateway::create(&home, &bash).await?;
    // The inbox shows one card at a time: the command's is opened from its row.
    app.click_shown(".inbox-row", "rm -rf build").await?;
    let scope = format!("[data-request-id='{bash_id}']");
    app.click(&format!("{scope} button"), "Edit the command before allowing").await?;
    let box_ = app.find(&format!("{scope} textarea.mono"), "").await?;
    box_.clear().await?;
    box_.send_keys("rm -rf build/tmp").await?;
    app.click(&format!("{scope} button"), "Allow edited").await?;
    let answered = resolved(&home, &bash_id).await?;
    assert_eq!(answered["answered_via"], "window");
    assert_eq!(
        answered["decision"],
        json!({"behavior": "allow", "updatedInput": {"command": "rm -rf build/tmp", "description": "Clean"}})
    );
    app.quit().await
}

#[tokio::test]
async fn a_notifications_allow_button_allows_the_call() -> Result<(), Failure> {
    let home = Home::new()?;
    let mut bus = Bus::start()?;
    bus.start_notification_daemon(&home).await?;
    let notifications = Notifications::record(&bus).await?;
    let app = App::launch_on(&home, bus).await?;
    let id = gateway::create(&home, &approval("Bash", json!({"command": "npm test"}), json!([]))).await?;
    let notified = notifications.wait_for("the approval's notification", |n| n.summary.contains("Bash")).await?;
    let buttons: Vec<&str> = notified.actions.iter().map(|(_, label)| label.as_str()).collect();
    assert_eq!(buttons, vec!["Open", "Allow", "Deny"]);
    let allow = notified.actions.iter().find(|(_, label)| label == "Allow").map(|(key, _)| key.clone()).unwrap();
    app.bus()?.daemon_action(notified.id.ok_or("no id")?, &allow)?;
    let answered = resolved(&home, &id).await?;
    assert_eq!(answered["decision"]["behavior"], "allow");
    assert_eq!(answered["answered_via"], "notification");

    // Answered in the terminal: the hook withdraws it, and its notification goes away.
    let second = gateway::create(&home, &approval("Bash", json!({"command": "npm run lint"}), json!([]))).await?;
    let shown = notifications
        .wait_for("the second approval's notification", |n| n.body.contains("Allow Claude") && n.id != notified.id)
        .await?;
    let withdrawn = gateway::cancel(&home, &second, "answered in the terminal").await?;
    assert_eq!(withdrawn["status"], "cancelled");
    notifications.wait_for_close(shown.id.ok_or("no id")?).await?;
    app.quit().await
}

#[tokio::test]
async fn scripts_may_allow_only_once_the_person_turns_it_on_in_settings() -> Result<(), Failure> {
    let home = Home::new()?;
    let app = App::launch(&home).await?;
    let first = gateway::create(&home, &approval("Bash", json!({"command": "make"}), json!([]))).await?;
    let (status, refused) = gateway::answer(&home, &first, &json!({"answer": "Allow"})).await?;
    assert!(status.contains(" 403 "), "{status} {refused}");
    assert_eq!(refused["error"]["kind"], "person_only");

    app.click("button[aria-label=Settings], a[aria-label=Settings]", "").await?;
    app.find("h1", "Settings").await?;
    app.click(".settings-view label", "Scripts may approve tool calls").await?;
    app.click(".settings-view button[type=submit]", "Save").await?;
    app.find(".settings-view", "Saved").await?;
    let (status, allowed) = gateway::answer(&home, &first, &json!({"answer": "Allow"})).await?;
    assert!(status.contains(" 200 "), "{status} {allowed}");
    assert_eq!(allowed["decision"]["behavior"], "allow");
    assert_eq!(allowed["answered_via"], "http");
    app.quit().await
}
