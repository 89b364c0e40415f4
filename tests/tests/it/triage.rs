//! Triage in the real app: a thousand questions from twenty agents in five projects grouped,
//! filtered and searched; a keyboard walk (from the skip link) that answers a question with an
//! option key and Enter, allows an approval whose command then runs (through `beckon hook
//! claude-code`, as Claude Code would run it) and denies another with a message; a batch
//! deny of fifty approvals that reaches every asker; and a rule offered after three allows that
//! then allows the next identical call at once, with no notification, and shows in the audit
//! export.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use beckon_e2e::seed::{self, Seeded};
use beckon_e2e::{App, Bus, Failure, Home, Notifications, cli_binary, gateway};
use fantoccini::key::Key;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, Command};

const SEEDED: usize = 1_000;

/// Waits until the inbox's count line says `expected` ("37 of 1,000").
async fn count_line(app: &App, expected: &str) -> Result<(), Failure> {
    app.shown(".inbox-count", expected).await.map(|_| ())
}

#[tokio::test]
async fn a_thousand_questions_are_grouped_filtered_and_searched() -> Result<(), Failure> {
    let home = Home::new()?;
    seed::pending(&home, SEEDED).await?;
    let seeded: Vec<Seeded> = (0..SEEDED).map(Seeded::nth).collect();
    let app = App::launch(&home).await?;
    count_line(&app, "1,000 questions").await?;
    app.screenshot(&beckon_e2e::screenshot_path("inbox-triage.png")).await?;

    // Grouped by project (the default), with each group's count.
    let in_shop = seeded.iter().filter(|s| s.project.as_deref() == Some("/home/ada/shop")).count();
    let header = app.shown(".inbox-group", "shop").await?;
    assert!(header.contains(&in_shop.to_string()), "{header}");

    // Only approvals: two in three.
    let approvals = seeded.iter().filter(|s| s.project.is_some()).count();
    app.find(".inbox-filter select", "All kinds").await?.select_by_value("approval").await?;
    count_line(&app, &format!("{approvals} of 1,000")).await?;

    // And only the docs project.
    let docs = seeded.iter().filter(|s| s.project.as_deref() == Some("/home/ada/docs")).count();
    app.find(".inbox-filter select", "All projects").await?.select_by_value("/home/ada/docs").await?;
    count_line(&app, &format!("{docs} of 1,000")).await?;

    // A search finds the one call among them; the row on screen is it.
    let search = app.find(".inbox-search", "").await?;
    search.send_keys("--shard 487").await?;
    let only = seeded.iter().filter(|s| s.text.contains("--shard 487")).count();
    assert_eq!(only, 1);
    count_line(&app, "1 of 1,000").await?;
    app.shown(".inbox-row", "npm run build -- --shard 487").await?;

    // Grouped by agent, with filters cleared: twenty groups of fifty, the first on screen.
    app.click(".inbox-count button", "Clear filters").await?;
    count_line(&app, "1,000 questions").await?;
    app.find(".inbox-filter select", "Project").await?;
    let group_by = app.find(".inbox-filter select", "Nothing").await?;
    group_by.select_by_value("agent").await?;
    let bot = app.shown(".inbox-group", "release-bot-0").await?;
    assert!(bot.contains("50"), "{bot}");

    // The list is windowed: far fewer rows in the page than questions.
    let rows = app.eval("return document.querySelectorAll('.inbox-row').length").await?;
    assert!(rows.as_u64().is_some_and(|n| n > 0 && n < 200), "{rows} rows in the page");
    app.quit().await
}

/// `beckon hook claude-code` started with a permission request to run `command` in `project`,
/// as Claude Code starts it: the hook waits for the person.
async fn hook_asking(home: &Home, command: &str, project: &Path) -> Result<Child, Failure> {
    hook_asking_in(home, "5b0c11aa-2233", command, project).await
}

/// `hook_asking` from Claude Code's session `session` (one session has one prompt at a time).
async fn hook_asking_in(home: &Home, session: &str, command: &str, project: &Path) -> Result<Child, Failure> {
    let event = json!({
        "session_id": session, "transcript_path": "/dev/null", "cwd": project,
        "permission_mode": "default", "hook_event_name": "PermissionRequest",
        "tool_name": "Bash", "tool_input": {"command": command, "description": "Run it"},
    });
    let mut hook = Command::new(cli_binary());
    home.apply(hook.as_std_mut());
    let mut child = hook
        .args(["hook", "claude-code"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    stdin.write_all(event.to_string().as_bytes()).await?;
    drop(stdin);
    Ok(child)
}

/// What the hook printed for Claude Code once it finished: its decision.
async fn hook_decision(child: Child) -> Result<Value, Failure> {
    let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output()).await??;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let printed: Value = serde_json::from_slice(&output.stdout)
        .map_err(|err| format!("the hook printed {:?}: {err}", String::from_utf8_lossy(&output.stdout)))?;
    Ok(printed["hookSpecificOutput"]["decision"].clone())
}

/// The fake agent: runs `command` in `project` if the hook allowed it, as Claude Code would.
async fn run_if_allowed(decision: &Value, command: &str, project: &Path) -> Result<bool, Failure> {
    if decision["behavior"] != "allow" {
        return Ok(false);
    }
    let status = Command::new("sh").arg("-c").arg(command).current_dir(project).status().await?;
    Ok(status.success())
}

/// The id of the question shown in the inbox's detail pane, if any.
async fn detail_id(app: &App) -> Result<Option<String>, Failure> {
    let id = app.eval("const c = document.querySelector('.inbox-detail [data-request-id]'); return c ? c.dataset.requestId : null").await?;
    Ok(id.as_str().map(str::to_owned))
}

/// Presses `j` in the list until the detail pane shows question `id`, once it shows a card at
/// all (the focused row's card follows the list's first frame).
async fn walk_to(app: &App, list: &fantoccini::elements::Element, id: &str) -> Result<(), Failure> {
    let started = Instant::now();
    while detail_id(app).await?.is_none() {
        if started.elapsed() > Duration::from_secs(10) {
            return Err("the detail pane never showed a card".into());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for _ in 0..10 {
        if detail_id(app).await?.as_deref() == Some(id) {
            return Ok(());
        }
        list.send_keys("j").await?;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(format!("j never reached question {id}").into())
}

/// The question once it is no longer pending.
async fn resolved(home: &Home, id: &str) -> Result<Value, Failure> {
    let started = Instant::now();
    loop {
        let view = gateway::question(home, id).await?;
        if view["status"] != "pending" {
            return Ok(view);
        }
        if started.elapsed() > Duration::from_secs(30) {
            return Err(format!("question {id} stayed pending").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Whether the focused element of the window is the inbox's list.
async fn list_has_focus(app: &App) -> Result<bool, Failure> {
    let role = app.eval("return document.activeElement && document.activeElement.getAttribute('role')").await?;
    Ok(role == "listbox")
}

#[tokio::test]
async fn the_keyboard_answers_a_question_allows_one_approval_and_denies_another() -> Result<(), Failure> {
    let home = Home::new()?;
    let project = tempfile::tempdir()?;
    let app = App::launch(&home).await?;
    let question = gateway::ask(&home, "deploy-bot", "Deploy build 7 to production?").await?;
    let command = "touch ran-by-the-agent";
    let hook = hook_asking(&home, command, project.path()).await?;
    app.shown(".inbox-row", "touch ran-by-the-agent").await?;
    let refused = "touch must-not-run";
    let refused_hook = hook_asking_in(&home, "7d1e22bb-4455", refused, project.path()).await?;
    app.shown(".inbox-row", refused).await?;
    let row_of = |text: &str| {
        format!(
            "return [...document.querySelectorAll('.inbox-row')].find(r => r.textContent.includes('{text}')).dataset.requestIdRow"
        )
    };
    let approval = app.eval(&row_of(command)).await?.as_str().ok_or("the approval's row has no id")?.to_owned();
    let denial = app.eval(&row_of(refused)).await?.as_str().ok_or("the second approval's row has no id")?.to_owned();

    // The skip link puts focus on the list.
    assert!(!list_has_focus(&app).await?);
    app.find(".skip-link", "Skip to the inbox").await?.send_keys(&Key::Enter.to_string()).await?;
    assert!(list_has_focus(&app).await?, "the skip link put focus on the list");

    // The question: from the list, 1 picks its first option and Enter sends it.
    let list = app.find(".inbox-list", "").await?;
    walk_to(&app, &list, &question).await?;
    list.send_keys("1").await?;
    app.find(".inbox-detail input[type=radio]:checked", "").await?;
    list.send_keys(&Key::Enter.to_string()).await?;
    let answered = resolved(&home, &question).await?;
    assert_eq!(answered["status"], "answered");
    assert_eq!(answered["answered_via"], "window");
    assert_eq!(answered["outcome"]["answers"][0]["selected"][0], "Yes", "{answered}");

    // An approval: a allows it, the hook hands Claude Code the allow, and the command runs.
    let list = app.find(".inbox-list", "").await?;
    walk_to(&app, &list, &approval).await?;
    list.send_keys("a").await?;
    let decision = hook_decision(hook).await?;
    assert_eq!(decision["behavior"], "allow", "{decision}");
    assert!(run_if_allowed(&decision, command, project.path()).await?);
    assert!(project.path().join("ran-by-the-agent").exists(), "the agent ran the allowed command");

    // Another: d asks for a message, Enter denies with it, and the command does not run.
    let list = app.find(".inbox-list", "").await?;
    walk_to(&app, &list, &denial).await?;
    list.send_keys("d").await?;
    let message = app.find("#deny-prompt-message", "").await?;
    message.send_keys("not on a Friday").await?;
    message.send_keys(&Key::Enter.to_string()).await?;
    let decision = hook_decision(refused_hook).await?;
    assert_eq!(decision["behavior"], "deny", "{decision}");
    assert_eq!(decision["message"], "not on a Friday", "{decision}");
    assert!(!run_if_allowed(&decision, refused, project.path()).await?);
    assert!(!project.path().join("must-not-run").exists(), "the denied command did not run");
    app.quit().await
}

#[tokio::test]
async fn a_batch_deny_of_fifty_reaches_every_asker() -> Result<(), Failure> {
    let home = Home::new()?;
    let app = App::launch(&home).await?;
    let mut ids = Vec::new();
    for i in 0..50 {
        let body = json!({"agent": "claude-code", "approval": {"tool_name": "Bash",
            "input": {"command": format!("make target-{i}")}, "project": "/home/ada/shop", "session": format!("s{i}")}});
        ids.push(gateway::create(&home, &body).await?);
    }
    count_line(&app, "50 questions").await?;
    app.click(".inbox-group-select", "Select all").await?;
    app.find(".batch-bar", "50 selected").await?;
    app.click(".batch-bar button", "Deny all").await?;
    let dialog = app.find(".batch-confirm", "make target-0").await?;
    let text = dialog.text().await?;
    assert!(text.contains("50"), "the confirmation names the count: {text}");
    assert!(text.contains("and 30 more"), "it lists twenty commands and says how many more: {text}");
    app.find("#batch-message", "").await?.send_keys("Not during the freeze").await?;
    app.click(".batch-confirm button[type=submit]", "Deny").await?;
    app.shown(".batch-result", "50").await?;
    // Every asker reads its own denial, with the message.
    for id in &ids {
        let view = resolved(&home, id).await?;
        assert_eq!(view["status"], "answered");
        assert_eq!(view["decision"]["behavior"], "deny", "{view}");
        assert!(view["decision"]["message"].as_str().unwrap_or_default().contains("Not during the freeze"), "{view}");
    }
    app.quit().await
}

#[tokio::test]
async fn a_rule_offered_after_three_allows_allows_the_next_call_without_a_notification() -> Result<(), Failure> {
    let home = Home::new()?;
    let project = tempfile::tempdir()?;
    let mut bus = Bus::start()?;
    bus.start_notification_daemon(&home).await?;
    let notifications = Notifications::record(&bus).await?;
    let app = App::launch_on(&home, bus).await?;
    for round in 0..3 {
        let hook = hook_asking(&home, "npm test", project.path()).await?;
        app.click_shown(".inbox-row:not(.is-resolved)", "npm test").await?;
        let card = app.find(".inbox-detail .qcard-pending", "npm test").await?;
        card.find(fantoccini::Locator::XPath(".//button[normalize-space(.)='Allow']")).await?.click().await?;
        let decision = hook_decision(hook).await?;
        assert_eq!(decision["behavior"], "allow", "round {round}: {decision}");
    }
    let offer = app.shown(".rule-offer", "npm test").await?;
    assert!(offer.contains("3 times"), "{offer}");
    app.click(".rule-offer button", "Make it a rule").await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let shown_before = notifications.seen().0.len();

    // The fourth identical call is allowed by the rule at once, without the person.
    let asked = Instant::now();
    let hook = hook_asking(&home, "npm test", project.path()).await?;
    let decision = hook_decision(hook).await?;
    assert_eq!(decision["behavior"], "allow", "{decision}");
    assert!(asked.elapsed() < Duration::from_secs(10), "allowed at once, not after a wait");
    // A destructive variant is never covered: it waits for the person.
    let risky = hook_asking(&home, "npm test && rm -rf /", project.path()).await?;
    app.shown(".inbox-row", "rm -rf").await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let shown: Vec<String> = notifications.seen().0.iter().skip(shown_before).map(|n| n.body.clone()).collect();
    assert!(
        shown.iter().all(|body| !body.contains("npm test") || body.contains("rm -rf")),
        "the rule's call notified: {shown:?}"
    );
    drop(risky);

    // The audit export names the rule.
    let mut audit = Command::new(cli_binary());
    home.apply(audit.as_std_mut());
    let output = audit.args(["audit", "--format", "jsonl"]).output().await?;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let rows: Vec<Value> =
        String::from_utf8(output.stdout)?.lines().map(serde_json::from_str).collect::<Result<_, _>>()?;
    let by_rule: Vec<&Value> = rows.iter().filter(|row| row["via"] == "rule").collect();
    assert_eq!(by_rule.len(), 1, "{rows:?}");
    assert_eq!(by_rule[0]["decision"], "allow");
    assert!(by_rule[0]["by"].as_str().unwrap_or_default().starts_with("rule "), "{}", by_rule[0]);
    assert_eq!(rows.iter().filter(|row| row["via"] == "window" && row["decision"] == "allow").count(), 3);
    app.quit().await
}
