//! The runtime end to end: sessions against scripted model servers, questions and their
//! callbacks, channels, tokens, hostile agents and workspaces, a runtime killed mid-session,
//! and the workspace's file layout. One test binary; each suite is a module.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod raw_llm;
mod support;

mod agent_limits;
mod audiences;
mod audit;
mod batch;
mod callback_delivery;
mod callbacks;
mod debug_redaction;
mod demo_agent;
mod environment_reference;
mod events;
mod external;
mod file_modes;
mod hostile_agents;
mod hostile_workspace;
mod hot_path;
mod kill_recovery;
mod layout;
mod lifecycle;
mod llm_loop;
mod pairing_guesses;
mod pairing_window;
mod provider_anthropic;
mod provider_openai;
mod push_delivery;
mod question_reference;
mod retention;
mod rules;
mod settings_reference;
mod slack_callbacks;
mod subagents;
mod tokens;
mod tools_in_sessions;
mod workspace_tools;
