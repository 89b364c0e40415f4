//! What the suites share: the `beckon` binary and `beckon serve` under test, the third-party
//! OpenID provider and the team server's people, and `beckon` as run on an agent's machine.
//! (The scripted model the real agents' CLIs talk to is `beckon_testkit::scripted_model`.)

pub mod another_machine;
pub mod oidc_provider;
pub mod python;
pub mod serve_start;
pub mod served;
pub mod server;
pub mod team;
