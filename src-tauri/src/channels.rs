//! The channels (Slack, Telegram) this window's Beckon runs: started with the runtime, started
//! again when their settings change, paused by do-not-disturb, stopped at quit.
//!
//! One restart runs at a time, and the channels are started while their slot is held: a
//! do-not-disturb change either comes before (the new channels read it from the settings) or
//! waits for the slot and reaches the new channels — never the stopped ones alone.

use std::sync::Mutex;

use beckon_channels::Channels;
use beckon_runtime::Beckon;

use crate::settings::Settings;

/// What runs now.
#[derive(Debug)]
enum Slot {
    /// These channels (none of them may be enabled).
    Running(Channels),
    /// Between stopping the old channels and starting new ones.
    Restarting,
    /// Stopped for good (the app quits).
    Closed,
}

/// The running channels, replaced as a whole when their settings change.
#[derive(Debug)]
pub struct RunningChannels {
    slot: Mutex<Slot>,
    /// Held for a whole restart or stop, so two never interleave.
    turn: tokio::sync::Mutex<()>,
}

fn start(beckon: &Beckon, settings: &Settings) -> Channels {
    let (slack, telegram) = settings.channels();
    Channels::start(beckon, slack, telegram, settings.do_not_disturb())
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl RunningChannels {
    /// Starts the channels `settings` enable (within the async runtime: they spawn tasks).
    pub fn start(beckon: &Beckon, settings: &Settings) -> RunningChannels {
        RunningChannels { slot: Mutex::new(Slot::Running(start(beckon, settings))), turn: tokio::sync::Mutex::new(()) }
    }

    /// None at all (the runtime did not start).
    pub fn none() -> RunningChannels {
        RunningChannels { slot: Mutex::new(Slot::Closed), turn: tokio::sync::Mutex::new(()) }
    }

    /// Do-not-disturb on or off: while on, the channels post nothing new.
    pub fn set_do_not_disturb(&self, on: bool) {
        if let Slot::Running(channels) = &*lock(&self.slot) {
            channels.set_do_not_disturb(on);
        }
    }

    /// Takes the running channels out (leaving `next`), unless closed.
    fn take(&self, next: Slot) -> Option<Channels> {
        let mut slot = lock(&self.slot);
        match std::mem::replace(&mut *slot, next) {
            Slot::Running(channels) => Some(channels),
            Slot::Restarting => None,
            Slot::Closed => {
                *slot = Slot::Closed;
                None
            }
        }
    }

    /// Stops the running channels and starts them again from the settings as they are now.
    pub async fn restart(&self, beckon: &Beckon, settings: &Mutex<Settings>) {
        let _turn = self.turn.lock().await;
        if matches!(*lock(&self.slot), Slot::Closed) {
            return;
        }
        if let Some(old) = self.take(Slot::Restarting) {
            old.stop().await;
        }
        let mut slot = lock(&self.slot);
        *slot = Slot::Running(start(beckon, &lock(settings)));
        tracing::info!("channels restarted with their new settings");
    }

    /// Stops them for good (at quit) and waits for them to end.
    pub async fn stop(&self) {
        let _turn = self.turn.lock().await;
        if let Some(channels) = self.take(Slot::Closed) {
            channels.stop().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use beckon_runtime::{RuntimeConfig, StartOptions};

    use super::*;

    #[tokio::test]
    async fn a_restart_replaces_the_channels_and_nothing_starts_after_the_stop() {
        let dir = tempfile::tempdir().unwrap();
        let beckon = Beckon::start(RuntimeConfig::new(dir.path()), StartOptions::default()).await.unwrap();
        let settings = Mutex::new(Settings::load(dir.path()));
        let channels = RunningChannels::start(&beckon, &lock(&settings));
        channels.set_do_not_disturb(true);
        channels.restart(&beckon, &settings).await;
        assert!(matches!(*lock(&channels.slot), Slot::Running(_)));

        channels.stop().await;
        channels.restart(&beckon, &settings).await;
        channels.set_do_not_disturb(false);
        assert!(matches!(*lock(&channels.slot), Slot::Closed), "quitting is for good");
        beckon.shutdown().await;
    }
}
