//! The authorization codes the provider has handed out: each spent at its first presentation.

use std::collections::HashMap;
use std::time::Instant;

/// A code handed out and what it was handed out for.
#[derive(Debug)]
pub(crate) struct Grant {
    pub(crate) client_id: String,
    pub(crate) redirect_uri: String,
    pub(crate) subject: String,
    pub(crate) nonce: Option<String>,
    pub(crate) challenge: String,
    pub(crate) issued: Instant,
}

/// The codes not yet redeemed, and counts.
#[derive(Debug, Default)]
pub(crate) struct Codes {
    open: HashMap<String, Grant>,
    pub(crate) issued: u64,
    pub(crate) redeemed: u64,
}

impl Codes {
    /// Records `code` as handed out for `grant`.
    pub(crate) fn hand_out(&mut self, code: String, grant: Grant) {
        self.open.insert(code, grant);
        self.issued += 1;
    }

    /// Takes `code` out of the open ones: what it was handed out for, or `None` for a code
    /// unknown or already spent.
    pub(crate) fn spend(&mut self, code: &str) -> Option<Grant> {
        self.open.remove(code)
    }
}
