//! Listening for the signals commands react to: Ctrl-C (withdraw a question, stop serving) and,
//! where there is one, SIGTERM (stop serving). Listening starts when [`Signals::listen`] is
//! called, so a signal that arrives before the command awaits it is not lost.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::Signals;

#[cfg(not(unix))]
mod other;
#[cfg(not(unix))]
pub use other::Signals;
