//! The loopback LLM provider the runtime's own tests use (it speaks the real streaming wire
//! formats), shared here rather than written twice.

#[path = "../../beckon-runtime/tests/support/fake_llm.rs"]
pub mod fake_llm;
