//! Does nothing: what starting a Rust program costs, for the hook's figures beside it.

fn main() {}
