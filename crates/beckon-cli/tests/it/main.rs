//! The `beckon` command end to end: the real binary, `beckon serve` and its replicas on a real
//! PostgreSQL, the real agents' CLIs against scripted models, Chromium as the team's people, and
//! the tools an operator runs. One test binary; each suite is a module.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;

mod agent_codex;
mod agent_copilot;
mod agent_gemini;
mod agent_opencode;
mod audit_export;
mod callback_secret;
mod chaos;
mod claude_code;
mod claude_code_prompts;
mod cli;
mod docs;
mod hand_over;
mod hook_claude_code;
mod hostile_cli;
mod local_socket;
mod mcp_python;
mod oidc_provider;
mod open_docs;
mod operations;
mod private_authority;
mod reattach;
mod remote_tokens;
mod replica_sessions;
mod replicas;
mod serve_listen;
mod serve_settings;
mod serve_sign_in;
mod setup_claude_code;
mod setup_connects;
mod team_channels;
mod team_chromium;
mod team_hostile;
mod team_push;
mod team_walkthrough;
mod team_window;
