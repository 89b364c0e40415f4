//! The test identity provider over real HTTP, as a relying party meets it. One test binary;
//! each suite is a module.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod protocol;
