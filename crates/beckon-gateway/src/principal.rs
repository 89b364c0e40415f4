//! Who a request acts for, as its bearer token says: the person (the token in `gateway.json`)
//! or an agent on another machine holding an ask-only token. The guard puts it in the request's
//! extensions; handlers that act differently for a token read it from there.

use beckon_runtime::TokenHolder;

/// Who a request acts for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// The person: the full token from `gateway.json`.
    Person,
    /// An agent holding an ask-only token: it may ask, and read or withdraw what it asked.
    AskOnly {
        /// The token it holds.
        token: TokenHolder,
    },
}
