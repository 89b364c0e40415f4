//! Ctrl-C only: there is no SIGTERM to listen for.

/// The signals a command listens for.
#[derive(Debug)]
pub struct Signals {
    _private: (),
}

impl Signals {
    /// Starts listening.
    pub fn listen() -> std::io::Result<Signals> {
        Ok(Signals { _private: () })
    }

    /// Starts listening (there is no hangup signal here).
    pub fn listen_with_hangup() -> std::io::Result<Signals> {
        Self::listen()
    }

    /// Resolves on Ctrl-C.
    pub async fn interrupted(&mut self) {
        let _ = tokio::signal::ctrl_c().await;
    }

    /// Resolves on Ctrl-C, naming it.
    pub async fn stopped(&mut self) -> &'static str {
        self.interrupted().await;
        "Ctrl-C"
    }
}
