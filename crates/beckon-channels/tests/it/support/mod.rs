//! What the suites share: the people of a team server, a Slack message drawn as a page, and
//! everything the program logs, captured.

pub mod block_kit;
pub mod captured_log;
pub mod people;
