//! SIGINT and SIGTERM, and SIGHUP for commands that listen for it.

use tokio::signal::unix::{Signal, SignalKind, signal};

/// The signals a command listens for.
#[derive(Debug)]
pub struct Signals {
    interrupt: Signal,
    terminate: Signal,
    /// Only when asked for: a command that does not await it would otherwise outlive its
    /// terminal.
    hangup: Option<Signal>,
}

impl Signals {
    /// Starts listening for SIGINT and SIGTERM.
    pub fn listen() -> std::io::Result<Signals> {
        Ok(Signals {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
            hangup: None,
        })
    }

    /// Starts listening for SIGINT, SIGTERM and SIGHUP: every way a parent ends a child.
    pub fn listen_with_hangup() -> std::io::Result<Signals> {
        Ok(Signals { hangup: Some(signal(SignalKind::hangup())?), ..Self::listen()? })
    }

    /// Resolves on Ctrl-C (SIGINT).
    pub async fn interrupted(&mut self) {
        self.interrupt.recv().await;
    }

    /// Resolves on SIGINT or SIGTERM (or SIGHUP, when listened for), naming which.
    pub async fn stopped(&mut self) -> &'static str {
        let hangup = &mut self.hangup;
        let hangup = async {
            match hangup {
                Some(hangup) => hangup.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = self.interrupt.recv() => "SIGINT",
            _ = self.terminate.recv() => "SIGTERM",
            _ = hangup => "SIGHUP",
        }
    }
}
