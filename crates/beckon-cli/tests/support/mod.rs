//! The parts of the chaos test: what to run (plan), the server under test and the process that
//! kills it, the clients' journeys, the callback receiver, and the audits that follow.

pub mod approver;
pub mod audit;
pub mod caller;
pub mod channels;
pub mod journeys;
pub mod kills;
pub mod plan;
pub mod progress;
pub mod receiver;
pub mod run;
pub mod server;
