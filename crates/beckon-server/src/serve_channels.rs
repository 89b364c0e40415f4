//! Slack and Telegram on a server: started at once by a lone `beckon serve`; on a team
//! server, run by one replica at a time — the one holding the `channels` lease — since two
//! replicas posting would post every question twice, and two Telegram pollers fight over
//! updates. The others look again every third of a lease and take over when the holder dies.

use beckon_channels::Channels;
use beckon_runtime::Beckon;
use beckon_runtime::settings::SettingsFile;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The lease the replica running Slack and Telegram holds.
const CHANNELS_WORK: &str = "channels";

/// The channels, run here or by another replica.
pub struct SharedChannels {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl SharedChannels {
    /// Runs the channels `file` configures while this replica holds them.
    pub fn start(beckon: &Beckon, file: &SettingsFile) -> SharedChannels {
        let (stop, stopping) = watch::channel(false);
        let task = tokio::spawn(hold(beckon.clone(), file.clone(), stopping));
        SharedChannels { stop, task }
    }

    /// Stops the channels if they run here, and lets another replica take them at once.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        if let Err(err) = self.task.await {
            tracing::warn!(%err, "the channels' keeper ended badly");
        }
    }
}

async fn hold(beckon: Beckon, file: SettingsFile, mut stopping: watch::Receiver<bool>) {
    let on: Vec<&str> = [("Slack", file.slack.enabled), ("Telegram", file.telegram.enabled)]
        .into_iter()
        .filter(|(_, enabled)| *enabled)
        .map(|(name, _)| name)
        .collect();
    // With no channel on there is nothing to hold, nor to say.
    if on.is_empty() {
        let _ = stopping.wait_for(|stop| *stop).await;
        return;
    }
    let names = on.join(" and ");
    let mut running: Option<Channels> = None;
    let every = beckon.lease() / 3;
    loop {
        let held = beckon.keep_shared_work(CHANNELS_WORK).await;
        match (held, running.take()) {
            (true, None) => {
                tracing::info!(channels = %names, "this replica runs the channels");
                running = Some(Channels::start(&beckon, &file.slack, &file.telegram, file.do_not_disturb));
            }
            (true, Some(channels)) => running = Some(channels),
            (false, Some(channels)) => {
                tracing::warn!(channels = %names, "another replica took over the channels; stopping them here");
                channels.stop().await;
            }
            (false, None) => {}
        }
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            _ = stopping.wait_for(|stop| *stop) => break,
        }
    }
    if let Some(channels) = running {
        channels.stop().await;
        beckon.let_go_of_shared_work(CHANNELS_WORK).await;
    }
}
