//! What the suites share: the `beckon` binary and `beckon serve` under test, an agent's real CLI
//! in a home of its own, a PostgreSQL of the test's own, Claude Code's hook run as Claude Code
//! runs it, waiting for a question to reach Beckon, the third-party OpenID provider and the team
//! server's people, and `beckon` as run on an agent's machine.
//! (The scripted model the real agents' CLIs talk to is `beckon_testkit::scripted_model`.)

pub mod agent_home;
pub mod another_machine;
pub mod hook;
pub mod metrics;
pub mod oidc_provider;
pub mod postgres;
pub mod python;
pub mod questions;
pub mod serve_start;
pub mod served;
pub mod server;
pub mod team;
