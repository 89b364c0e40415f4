//! Who the provider knows: the people who sign in, and the relying parties they sign in to.

/// A person the provider knows.
#[derive(Debug, Clone)]
pub struct Person {
    /// The `sub` claim, also what a `login_hint` names.
    pub subject: String,
    pub email: String,
    pub name: String,
    /// The `groups` claim.
    pub groups: Vec<String>,
}

/// A relying party registered with the provider.
#[derive(Debug, Clone)]
pub struct Client {
    pub id: String,
    /// `None`: a public client (a desktop app), which authenticates by PKCE alone.
    pub secret: Option<String>,
    /// Where codes may be sent. A loopback one (`http://127.0.0.1/…`) matches any port, as
    /// RFC 8252 asks of native apps' redirects.
    pub redirect_uris: Vec<String>,
}
