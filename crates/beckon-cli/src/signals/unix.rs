//! SIGINT and SIGTERM.

use tokio::signal::unix::{Signal, SignalKind, signal};

/// The signals a command listens for.
#[derive(Debug)]
pub struct Signals {
    interrupt: Signal,
    terminate: Signal,
}

impl Signals {
    /// Starts listening.
    pub fn listen() -> std::io::Result<Signals> {
        Ok(Signals { interrupt: signal(SignalKind::interrupt())?, terminate: signal(SignalKind::terminate())? })
    }

    /// Resolves on Ctrl-C (SIGINT).
    pub async fn interrupted(&mut self) {
        self.interrupt.recv().await;
    }

    /// Resolves on SIGINT or SIGTERM, naming which.
    pub async fn stopped(&mut self) -> &'static str {
        tokio::select! {
            _ = self.interrupt.recv() => "SIGINT",
            _ = self.terminate.recv() => "SIGTERM",
        }
    }
}
