//! The window's life end to end: closed, it hides to the tray; hidden past its keep-warm time,
//! its WebView and web process are released; while released, questions are still notified,
//! counted in the tray and answered from a notification; a `beckon://` link and the tray make
//! the window again, at the place they name, with the inbox as it is.

use std::process::Stdio;

use beckon_e2e::{
    App, Bus, Failure, Home, Notifications, Transcript, TrayItem, TrayWatcher, app_binary, eventually, gateway,
};
use fantoccini::Locator;
use serde_json::json;

/// The app's keep-warm variable: a second, so the test sees the release soon after a close.
const KEEP_WARM: (&str, &str) = ("BECKON_WINDOW_KEEP_WARM_SECONDS", "1");

/// Waits until the tray's label reads `label`.
async fn tray_says(item: &TrayItem, bus: &Bus, label: &str) -> Result<(), Failure> {
    eventually(&format!("the tray says {label:?}"), || (item.label(bus).ok()? == label).then_some(())).await
}

/// Closes the window as a person does and waits until its WebView is released: its web
/// process is gone. (Driven by WebDriver, the app keeps WebKit's network process, which it
/// otherwise stops too: see the next test.)
async fn close_and_wait_for_release(home: &Home) -> Result<(), Failure> {
    App::close_window(home)?;
    eventually("the window off screen", || (!App::window_on_screen(home).ok()?).then_some(())).await?;
    eventually("the web process released", || {
        (!App::webkit_processes(home).ok()?.iter().any(|name| name.starts_with("WebKitWebProces"))).then_some(())
    })
    .await
}

/// Waits until the question `id` was answered with `label`.
async fn answered(home: &Home, id: &str, label: &str) -> Result<(), Failure> {
    let started = std::time::Instant::now();
    loop {
        let view = gateway::question(home, id).await?;
        if view["status"] == json!("answered") {
            assert_eq!(view["outcome"]["answers"][0]["selected"], json!([label]), "{view}");
            return Ok(());
        }
        assert!(started.elapsed() < beckon_e2e::PATIENCE, "{id} was not answered: {view}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_released_window_keeps_notifying_and_comes_back_with_the_inbox_intact() -> Result<(), Failure> {
    let home = Home::new()?;
    let mut bus = Bus::start()?;
    bus.start_notification_daemon(&home).await?;
    let notifications = Notifications::record(&bus).await?;
    let watcher = TrayWatcher::start(&bus).await?;
    let app = App::launch_with_env(&home, bus, &[KEEP_WARM]).await?;
    let item = watcher.item().await?;
    let bus = app.bus()?;
    app.find("h1", "Inbox").await?;
    let first = gateway::ask(&home, "deploy-bot", "Deploy build 1 to production?").await?;
    let second = gateway::ask(&home, "backup-bot", "Restore last night's backup?").await?;
    app.shown(".inbox-row", "Restore last night's backup?").await?;
    tray_says(&item, bus, "2 agents waiting").await?;

    close_and_wait_for_release(&home).await?;
    assert!(!App::window_on_screen(&home)?);

    // Released: a question is still notified and counted, and a notification's button answers.
    let third = gateway::ask(&home, "cleanup-bot", "Delete the stale branches?").await?;
    let shown =
        notifications.wait_for("the third question's notification", |n| n.body == "Delete the stale branches?").await?;
    tray_says(&item, bus, "3 agents waiting").await?;
    let shown_first = notifications
        .wait_for("the first question's notification", |n| n.body == "Deploy build 1 to production?")
        .await?;
    bus.daemon_action(shown_first.id.ok_or("no id")?, "answer:0")?;
    answered(&home, &first, "Yes").await?;
    tray_says(&item, bus, "2 agents waiting").await?;
    assert!(!App::window_on_screen(&home)?, "answering from a notification leaves the window closed");
    assert_eq!(
        App::webkit_processes(&home)?,
        vec!["WebKitNetworkPr".to_owned()],
        "answering from a notification needs no WebView"
    );

    // A link makes the window again, at its question; answered there.
    let opened = app.open_link(&home, &format!("beckon://question/{second}")).await?;
    assert!(opened.success(), "{opened}");
    eventually("the window on screen", || App::window_on_screen(&home).ok()?.then_some(())).await?;
    app.follow_window().await?;
    app.wait_for_place(&format!("#/question/{second}")).await?;
    let card = app.find(&format!(".qcard-highlighted[data-request-id='{second}']"), "").await?;
    card.find(Locator::XPath(".//label[contains(., 'No')]")).await?.click().await?;
    card.find(Locator::XPath(".//button[@type='submit']")).await?.click().await?;
    answered(&home, &second, "No").await?;
    tray_says(&item, bus, "1 agent waiting").await?;

    // Released again; the notification's click (its default action) brings it back at the question.
    close_and_wait_for_release(&home).await?;
    bus.daemon_action(shown.id.ok_or("no id")?, "default")?;
    eventually("the window on screen", || App::window_on_screen(&home).ok()?.then_some(())).await?;
    app.follow_window().await?;
    app.wait_for_place(&format!("#/question/{third}")).await?;
    app.find(&format!(".qcard-highlighted[data-request-id='{third}']"), "Delete the stale branches?").await?;

    // Released once more, then opened from the tray: the inbox as it is.
    close_and_wait_for_release(&home).await?;
    let fourth = gateway::ask(&home, "docs-bot", "Publish the release notes?").await?;
    notifications.wait_for("the fourth question's notification", |n| n.body == "Publish the release notes?").await?;
    tray_says(&item, bus, "2 agents waiting").await?;
    let open = eventually("the tray's Open Inbox", || {
        item.menu(bus).ok()?.into_iter().find(|entry| entry.label == "Open Inbox")
    })
    .await?;
    item.click(bus, open.id)?;
    eventually("the window on screen", || App::window_on_screen(&home).ok()?.then_some(())).await?;
    app.follow_window().await?;
    app.wait_for_place("#/inbox").await?;
    app.shown(".inbox-row", "Publish the release notes?").await?;
    app.shown(".inbox-row", "Delete the stale branches?").await?;
    let waiting = app
        .eval("return [...document.querySelectorAll('.inbox-row:not(.is-resolved)')].map((row) => row.dataset.requestIdRow)")
        .await?;
    assert_eq!(waiting, json!([third, fourth]), "the two questions still waiting, oldest first");
    assert!(gateway::question(&home, &fourth).await?["status"] == json!("pending"));
    app.quit().await
}

/// How many times the app's log says a window's page subscribed to its events (a page that
/// loaded and ran).
fn pages_loaded(app: &Transcript) -> usize {
    app.lines().iter().filter(|line| line.contains("a window subscribed to events")).count()
}

#[tokio::test]
async fn a_released_window_gives_back_every_webkit_process_and_a_link_makes_it_again() -> Result<(), Failure> {
    let home = Home::new()?;
    let bus = Bus::start()?;
    // The app on its own, as people run it: no WebDriver session holds its WebView.
    let mut command = bus.command(&app_binary().to_string_lossy());
    home.apply(&mut command);
    command.env(KEEP_WARM.0, KEEP_WARM.1).env("BECKON_LOG", "info");
    let app = Transcript::start(command)?;
    eventually("the first page loaded", || (pages_loaded(&app) == 1).then_some(())).await?;
    eventually("the window on screen", || App::window_on_screen(&home).ok()?.then_some(())).await?;
    assert_eq!(App::webkit_processes(&home)?.len(), 2, "a web and a network process");

    App::close_window(&home)?;
    eventually("every WebKit process released", || App::webkit_processes(&home).ok()?.is_empty().then_some(())).await?;
    eventually("what the window took given back", || {
        app.lines().iter().any(|line| line.contains("gave back what the window took")).then_some(())
    })
    .await?;
    assert!(!App::window_on_screen(&home)?);

    let mut link = bus.command(&app_binary().to_string_lossy());
    home.apply(&mut link);
    let status = link.arg("beckon://inbox").stdout(Stdio::null()).stderr(Stdio::null()).status()?;
    assert!(status.success(), "{status}");
    eventually("the window on screen again", || App::window_on_screen(&home).ok()?.then_some(())).await?;
    eventually("a new page loaded and ran", || (pages_loaded(&app) == 2).then_some(())).await?;
    let mut running = App::webkit_processes(&home)?;
    running.sort();
    assert_eq!(running, ["WebKitNetworkPr", "WebKitWebProces"], "WebKit started again for the new window");
    Ok(())
}
