//! What the suites share: the `beckon` binary and `beckon serve` under test, the scripted model
//! APIs the real agents' CLIs talk to, the third-party OpenID provider and the team server's
//! people, and `beckon` as run on an agent's machine.

pub mod another_machine;
pub mod anthropic;
pub mod chat_completions;
pub mod gemini_api;
pub mod oidc_provider;
pub mod python;
pub mod responses;
pub mod serve_start;
pub mod served;
pub mod server;
pub mod team;
