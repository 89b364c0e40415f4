//! Beckon's benchmark suite: the real runtime, store and gateway on real database files, with
//! the scripted provider (and a loopback provider speaking Anthropic's wire format where the
//! figure is about the model's next request). `cargo run --release -p beckon-bench -- [--quick]`
//! prints a table and one JSON line; see the README's Performance section.

pub mod audit_db;
pub mod audit_export;
pub mod batch_deny;
pub mod cycles;
pub mod fixtures;
pub mod floor;
pub mod gateway;
pub mod hook;
pub mod inbox_db;
pub mod langgraph;
pub mod latency;
pub mod page_cache;
pub mod progress;
mod reap;
pub mod rehydrate;
pub mod rendezvous;
pub mod rig;
pub mod serve_memory;
pub mod stats;
pub mod targets;
pub mod team;
pub mod waiting;

pub(crate) use beckon_testkit::fake_llm;

/// Anything that stops a figure from being measured.
pub type Failure = Box<dyn std::error::Error + Send + Sync>;
