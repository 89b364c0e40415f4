//! The provider's one error type.

/// What can go wrong starting or driving the provider.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Its port could not be opened.
    #[error("cannot listen on loopback: {0}")]
    Listen(#[from] std::io::Error),
    /// A key file is unreadable or a signature failed.
    #[error("signing key {0}")]
    Key(String),
    /// Every key the provider has is already published.
    #[error("no key left to rotate to")]
    NoMoreKeys,
}
