//! Claude Code: its hook events as Beckon's approvals, questions and forms ([`hook`]), its wait
//! at its own prompt as a notice ([`waiting`]), and the configuration that connects it
//! ([`settings`], [`setup`]).

mod elicitation;
pub mod hook;
pub mod settings;
pub mod setup;
pub mod waiting;
