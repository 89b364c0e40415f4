//! The domain's integration tests: agent files the fuzzer once broke, Claude Code's own
//! requests, and the hostile `beckon://` links. One test binary; each suite is a module.

#![allow(clippy::expect_used, clippy::unwrap_used)] // a failing test says why

mod agent_file_regressions;
mod claude_code_examples;
mod hostile_links;
