//! A click on a notification to its question on screen. Warm: the window was closed and kept
//! (hidden, its WebView alive). Cold: the window was released, so the click makes it again.
//! Both are driven through WebDriver with dunst on the bus, which clicks as a person would.
//!
//! A WebDriver session keeps WebKit's network process when the window is released (its driver
//! would end the session otherwise), where the app on its own stops it: what starting it again
//! costs is measured without WebDriver, from a `beckon://` link to the new page running, once
//! with the network process stopped and once with it kept.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use beckon_e2e::{App, Bus, Failure, Home, Notifications, eventually, gateway, seed};
use serde_json::{Value, json};

use crate::frames::ready_mark;
use crate::launch::ANY_GATEWAY_PORT;
use crate::log;
use crate::notify::ASK_SPACING;
use crate::plain::PlainApp;

/// The app's keep-warm variable.
const KEEP_WARM: &str = "BECKON_WINDOW_KEEP_WARM_SECONDS";

/// The mark the window sets once the card of a question it was sent to has been painted.
pub const QUESTION_SHOWN: &str = "beckon:question-shown";

/// How long the mark may take after a click.
const MARK_PATIENCE: Duration = Duration::from_secs(15);

/// The page's script reading when the question `arguments[0]` was shown, in milliseconds since
/// the epoch (`at`), with how many such marks the page has and where it is.
const MARK_SCRIPT: &str = "const marks = performance.getEntriesByName('beckon:question-shown');
const mark = marks.find((m) => m.detail && m.detail.question === arguments[0]);
return { at: mark ? performance.timeOrigin + mark.startTime : null, marks: marks.length, place: window.location.hash };";

/// Waits for the window's [`QUESTION_SHOWN`] mark for question `id`; when it was set. The
/// page's own time is what counts, not when it is read.
async fn question_shown_at(app: &App, id: &str) -> Result<SystemTime, Failure> {
    let started = Instant::now();
    let mut seen = Value::Null;
    loop {
        // A page being made again may not answer yet: try again.
        if let Ok(now) = app.client.execute(MARK_SCRIPT, vec![json!(id)]).await {
            if let Some(at) = now["at"].as_f64() {
                return Ok(UNIX_EPOCH + Duration::try_from_secs_f64(at / 1000.0)?);
            }
            seen = now;
        }
        if started.elapsed() > MARK_PATIENCE {
            return Err(format!(
                "the window set no `{QUESTION_SHOWN}` mark for question {id} within {} s of the click (the page \
                 has {} such marks and is at {}); the bench reads the User Timing mark `{QUESTION_SHOWN}` with \
                 `detail.question` = the question's id, which the window sets once a question it was sent to is \
                 painted: this build's UI does not set it",
                MARK_PATIENCE.as_secs(),
                seen["marks"],
                seen["place"],
            )
            .into());
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Asks questions over the gateway, far enough apart that each gets a notification of its own.
struct Asker<'a> {
    home: &'a Home,
    notifications: &'a Notifications,
    last: Option<Instant>,
    asked: usize,
}

impl Asker<'_> {
    /// Asks the next question; its id and its notification's.
    async fn ask(&mut self) -> Result<(String, u32), Failure> {
        if let Some(last) = self.last {
            tokio::time::sleep(ASK_SPACING.saturating_sub(last.elapsed())).await;
        }
        self.asked += 1;
        let text = format!("Roll back release {}?", self.asked);
        let id = gateway::ask(self.home, &format!("click-bot-{}", self.asked), &text).await?;
        self.last = Some(Instant::now());
        let shown = self.notifications.wait_for(&format!("the notification of {text:?}"), |n| n.body == text).await?;
        Ok((id, shown.id.ok_or("a notification without its id")?))
    }
}

/// Whether the window is kept or released between clicks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Temperature {
    Warm,
    Cold,
}

impl Temperature {
    fn label(self) -> &'static str {
        match self {
            Temperature::Warm => "warm",
            Temperature::Cold => "cold",
        }
    }
}

/// Times `clicks` clicks on notifications, each from just before the click to the question's
/// mark.
async fn click_to_question(program: &Path, clicks: usize, temperature: Temperature) -> Result<Vec<Duration>, Failure> {
    let home = Home::new()?;
    seed::pending(&home, 0).await?;
    let mut bus = Bus::start()?;
    bus.start_notification_daemon(&home).await?;
    let notifications = Notifications::record(&bus).await?;
    // Warm: longer than any run, so the window is never released.
    let keep_warm = match temperature {
        Temperature::Warm => "86400",
        Temperature::Cold => "0",
    };
    let app = App::launch_program_with_env(&home, bus, program, &[(KEEP_WARM, keep_warm), ANY_GATEWAY_PORT]).await?;
    ready_mark(&app).await?;
    let mut asker = Asker { home: &home, notifications: &notifications, last: None, asked: 0 };
    let mut latencies = Vec::new();
    for click in 1..=clicks {
        App::close_window(&home)?;
        eventually("the window off screen", || (!App::window_on_screen(&home).ok()?).then_some(())).await?;
        if temperature == Temperature::Cold {
            eventually("the web process released", || {
                (!App::webkit_processes(&home).ok()?.iter().any(|name| name.starts_with("WebKitWebProces")))
                    .then_some(())
            })
            .await?;
        }
        let (id, notification) = asker.ask().await?;
        let clicked = SystemTime::now();
        app.bus()?.daemon_action(notification, "default")?;
        if temperature == Temperature::Cold {
            app.follow_window().await?;
        }
        let shown = question_shown_at(&app, &id).await?;
        let latency = shown.duration_since(clicked).unwrap_or_default();
        eprintln!(
            "{} click {click}/{clicks}: question on screen after {:.1} ms",
            temperature.label(),
            latency.as_secs_f64() * 1000.0
        );
        latencies.push(latency);
        eventually("the window on screen", || App::window_on_screen(&home).ok()?.then_some(())).await?;
    }
    app.quit().await?;
    Ok(latencies)
}

/// What a release does with WebKit's network process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NetworkProcess {
    /// Stopped, as the app on its own does.
    Stopped,
    /// Kept, as the app does when WebDriver drives it (`TAURI_WEBVIEW_AUTOMATION=true`).
    Kept,
}

impl NetworkProcess {
    fn label(self) -> &'static str {
        match self {
            NetworkProcess::Stopped => "stopped",
            NetworkProcess::Kept => "kept",
        }
    }
}

/// Times `times` `beckon://inbox` links opened while the window is released, each from just
/// before the second launch to the log line of the new page running (the line's own
/// timestamp), with the app started on its own.
async fn link_to_page(program: &Path, times: usize, network: NetworkProcess) -> Result<Vec<Duration>, Failure> {
    let home = Home::new()?;
    seed::pending(&home, 0).await?;
    let mut variables = vec![(KEEP_WARM, "1")];
    if network == NetworkProcess::Kept {
        variables.push(("TAURI_WEBVIEW_AUTOMATION", "true"));
    }
    let app = PlainApp::start(program, home, Bus::start()?, &variables).await?;
    let mut latencies = Vec::new();
    for time in 1..=times {
        let given_back = app.count(log::GAVE_BACK);
        App::close_window(&app.home)?;
        eventually("the WebKit processes released", || {
            let running = App::webkit_processes(&app.home).ok()?;
            let released = match network {
                NetworkProcess::Stopped => running.is_empty(),
                NetworkProcess::Kept => !running.iter().any(|name| name.starts_with("WebKitWebProces")),
            };
            released.then_some(())
        })
        .await?;
        app.wait_for(log::GAVE_BACK, given_back + 1).await?;
        let pages = app.count(log::PAGE_RAN);
        let opened = SystemTime::now();
        let status = app.open_link("beckon://inbox")?;
        if !status.success() {
            return Err(format!("the second launch with a link exited with {status}").into());
        }
        let line = app.wait_for(log::PAGE_RAN, pages + 1).await?;
        let ran = log::written_at(&line).ok_or_else(|| format!("no time at the start of the log line {line:?}"))?;
        let latency = ran.duration_since(opened).unwrap_or_default();
        eprintln!(
            "link, network process {} {time}/{times}: page ran after {:.1} ms",
            network.label(),
            latency.as_secs_f64() * 1000.0
        );
        latencies.push(latency);
        eventually("the window on screen", || App::window_on_screen(&app.home).ok()?.then_some(())).await?;
    }
    app.quit().await?;
    Ok(latencies)
}

/// The four series, each with its own outcome: one failing leaves the others measured.
pub struct Clicks {
    pub warm: Result<Vec<Duration>, String>,
    pub cold: Result<Vec<Duration>, String>,
    pub link_network_stopped: Result<Vec<Duration>, String>,
    pub link_network_kept: Result<Vec<Duration>, String>,
}

/// Measures the four series, `clicks` times each.
pub async fn measure(program: &Path, clicks: usize) -> Clicks {
    let outcome = |result: Result<Vec<Duration>, Failure>| {
        result.map_err(|err| {
            eprintln!("failed: {err}");
            err.to_string()
        })
    };
    Clicks {
        warm: outcome(click_to_question(program, clicks, Temperature::Warm).await),
        cold: outcome(click_to_question(program, clicks, Temperature::Cold).await),
        link_network_stopped: outcome(link_to_page(program, clicks, NetworkProcess::Stopped).await),
        link_network_kept: outcome(link_to_page(program, clicks, NetworkProcess::Kept).await),
    }
}
