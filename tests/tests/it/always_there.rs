//! "Always there" end to end: starting at login writes and removes the XDG autostart entry; a
//! start from that entry (`--hidden`) puts no window on screen until the tray, a link or a
//! notification opens it; and questions that waited while Beckon was closed are notified once
//! for them all.

use std::time::Duration;

use beckon_e2e::{App, Bus, Failure, Home, Notifications, TrayWatcher, eventually, gateway};
use serde_json::json;

#[tokio::test]
async fn the_settings_switch_writes_and_removes_the_autostart_entry() -> Result<(), Failure> {
    let home = Home::new()?;
    let entry = home.autostart_entry();
    let app = App::launch(&home).await?;
    app.click("button[aria-label=Settings]", "").await?;
    let switch = ".settings-view .start-at-login input[role=switch]";
    app.find(&format!("{switch}:not([disabled])"), "").await?;
    assert!(!entry.exists(), "nothing is written before the person asks");
    assert_eq!(app.invoke("start_at_login", json!({})).await?, json!(false));

    // The switch is drawn over its input: a click on its label turns it, as a person's would.
    app.click(".settings-view .start-at-login label", "Start Beckon when I log in").await?;
    // The entry is written in place, not renamed into it: wait until it is whole.
    let written = eventually("the autostart entry", || {
        std::fs::read_to_string(&entry).ok().filter(|text| text.lines().any(|line| line.starts_with("Exec=")))
    })
    .await?;
    let exec = written.lines().find_map(|line| line.strip_prefix("Exec=")).ok_or("no Exec line")?;
    assert_eq!(exec, format!("{} --hidden", beckon_e2e::app_binary().canonicalize()?.display()), "{written}");
    assert!(written.contains("Type=Application") && written.contains("Name=Beckon"), "{written}");
    app.find(&format!("{switch}:checked"), "").await?;
    assert_eq!(app.invoke("start_at_login", json!({})).await?, json!(true));

    app.click(".settings-view .start-at-login label", "Start Beckon when I log in").await?;
    eventually("the autostart entry removed", || (!entry.exists()).then_some(())).await?;
    app.find(&format!("{switch}:not(:checked):not([disabled])"), "").await?;
    // The command the switch uses, directly: on again, then off.
    assert_eq!(app.invoke("set_start_at_login", json!({"on": true})).await?, json!(true));
    assert!(entry.is_file());
    assert_eq!(app.invoke("set_start_at_login", json!({"on": false})).await?, json!(false));
    assert!(!entry.exists());
    app.quit().await
}

/// Checks for a while that the window was never shown, not even for a flash at start.
async fn stays_hidden(home: &Home, app: &App) -> Result<(), Failure> {
    for _ in 0..10 {
        assert!(App::window_never_shown(home)?, "the window was shown");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(app.eval("return document.visibilityState").await?, json!("hidden"));
    Ok(())
}

#[tokio::test]
async fn started_at_login_beckon_waits_in_the_tray_until_the_tray_opens_it() -> Result<(), Failure> {
    let home = Home::new()?;
    let bus = Bus::start()?;
    let watcher = TrayWatcher::start(&bus).await?;
    let app = App::launch_hidden(&home, bus).await?;
    let item = watcher.item().await?;
    // The window's page runs, unseen, with everything loaded.
    app.find("h1", "Inbox").await?;
    stays_hidden(&home, &app).await?;

    // Its autostart entry running again while Beckon runs changes nothing.
    let again = app.launch_again(&home, &["--hidden"]).await?;
    assert!(again.success(), "{again}");
    stays_hidden(&home, &app).await?;

    let bus = app.bus()?;
    let open = eventually("the tray's Open Inbox", || {
        item.menu(bus).ok()?.into_iter().find(|entry| entry.label == "Open Inbox")
    })
    .await?;
    item.click(bus, open.id)?;
    eventually("the window on screen", || App::window_on_screen(&home).ok()?.then_some(())).await?;
    app.wait_for_place("#/inbox").await?;
    assert_eq!(app.eval("return document.visibilityState").await?, json!("visible"));
    app.quit().await
}

#[tokio::test]
async fn started_at_login_a_link_opens_the_window() -> Result<(), Failure> {
    let home = Home::new()?;
    let app = App::launch_hidden(&home, Bus::start()?).await?;
    app.find("h1", "Inbox").await?;
    stays_hidden(&home, &app).await?;
    // Elsewhere first (nothing can be clicked in a window that is not shown).
    app.eval("window.location.hash = '#/new'; return null").await?;
    app.wait_for_place("#/new").await?;
    let opened = app.open_link(&home, "beckon://inbox").await?;
    assert!(opened.success(), "{opened}");
    eventually("the window on screen", || App::window_on_screen(&home).ok()?.then_some(())).await?;
    app.wait_for_place("#/inbox").await?;
    app.quit().await
}

#[tokio::test]
async fn a_plain_start_shows_the_window() -> Result<(), Failure> {
    let home = Home::new()?;
    let app = App::launch(&home).await?;
    app.find("h1", "Inbox").await?;
    eventually("the window on screen", || App::window_on_screen(&home).ok()?.then_some(())).await?;
    app.quit().await
}

#[tokio::test]
async fn questions_that_waited_while_beckon_was_closed_are_notified_once_for_all() -> Result<(), Failure> {
    let home = Home::new()?;
    let app = App::launch(&home).await?;
    for build in 1..=3 {
        gateway::ask(&home, "deploy-bot", &format!("Deploy build {build}?")).await?;
    }
    app.shown(".inbox-row", "Deploy build 3?").await?;
    app.quit().await?;

    let mut bus = Bus::start()?;
    bus.start_notification_daemon(&home).await?;
    let notifications = Notifications::record(&bus).await?;
    // As at login: started hidden, in the tray.
    let app = App::launch_hidden(&home, bus).await?;
    let caught_up = notifications
        .wait_for("the catch-up notification", |n| n.summary == "3 questions waited while Beckon was closed")
        .await?;
    assert_eq!(caught_up.body, "Open the inbox to answer them.");
    assert_eq!(caught_up.actions, vec![("default".to_owned(), "Open".to_owned())]);
    // Time for any other notification to show: there is none.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (all, _) = notifications.seen();
    assert_eq!(all.len(), 1, "one notification for all three: {all:?}");

    // A click on it opens the window, never shown until then, at the inbox.
    assert!(App::window_never_shown(&home)?, "the window was shown");
    app.eval("window.location.hash = '#/new'; return null").await?;
    app.wait_for_place("#/new").await?;
    app.bus()?.daemon_action(caught_up.id.ok_or("no id")?, "default")?;
    eventually("the window on screen", || App::window_on_screen(&home).ok()?.then_some(())).await?;
    app.wait_for_place("#/inbox").await?;
    app.find(".inbox-view .qcard-pending", "Deploy build 1?").await?;
    app.quit().await
}
