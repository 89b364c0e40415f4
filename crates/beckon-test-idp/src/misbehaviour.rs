//! Ways a test asks the token endpoint to go wrong.

/// How the token endpoint's next ID token goes wrong, for tests of a relying party's checks.
#[derive(Debug, Clone)]
pub enum Misbehaviour {
    /// Signed with a key the JWKS does not publish.
    ForgedSignature,
    /// Expired a minute ago.
    Expired,
    /// Issued to another client.
    Audience(String),
    /// Carrying another nonce than the authorization's.
    Nonce(String),
    /// Naming another issuer.
    Issuer(String),
}
