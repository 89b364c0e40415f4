//! A question asked over the gateway's HTTP API to the app's `Notify` call on the session bus
//! (as `dbus-monitor` timestamps it), with dunst as the notification daemon.

use std::path::Path;
use std::time::{Duration, SystemTime};

use beckon_e2e::{App, Bus, Failure, Home, Notifications, gateway, seed};

use crate::frames::ready_mark;
use crate::launch::ANY_GATEWAY_PORT;

/// Asks are this far apart: more than three questions within five seconds become one
/// notification for them all, and the bench times the one for a question.
pub const ASK_SPACING: Duration = Duration::from_secs(2);

/// Asks `asks` questions over the gateway of `program`, running on a bus with dunst, and times
/// each until its `Notify` call is seen on the bus.
pub async fn ask_to_notification(program: &Path, asks: usize) -> Result<Vec<Duration>, Failure> {
    let home = Home::new()?;
    seed::pending(&home, 0).await?;
    let mut bus = Bus::start()?;
    bus.start_notification_daemon(&home).await?;
    let notifications = Notifications::record(&bus).await?;
    let app = App::launch_program_with_env(&home, bus, program, &[ANY_GATEWAY_PORT]).await?;
    ready_mark(&app).await?;
    // Let start-up's own work settle before the first ask.
    tokio::time::sleep(ASK_SPACING).await;
    let mut latencies = Vec::new();
    for i in 0..asks {
        let agent = format!("bench-bot-{i}");
        let asked = SystemTime::now();
        gateway::ask(&home, &agent, &format!("Deploy build {i} to production?")).await?;
        let prefix = format!("{agent} asks");
        let shown = notifications.wait_for(&format!("{agent}'s notification"), |n| n.summary.contains(&prefix)).await?;
        let seen = shown.seen_at.ok_or("dbus-monitor gave the Notify call no time")?;
        let latency = seen.duration_since(asked).unwrap_or_default();
        eprintln!("ask {}/{asks}: Notify on the bus after {:.1} ms", i + 1, latency.as_secs_f64() * 1000.0);
        latencies.push(latency);
        tokio::time::sleep(ASK_SPACING).await;
    }
    app.quit().await?;
    Ok(latencies)
}
