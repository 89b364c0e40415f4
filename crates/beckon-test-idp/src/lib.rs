//! An OpenID provider on loopback, standing in for a team's identity provider in Beckon's
//! tests. It speaks the real protocol over real HTTP: a discovery document, an authorization
//! endpoint (the authorization code flow, PKCE with S256 required), a token endpoint that
//! authenticates its client, checks the PKCE verifier and spends each code once, and ID tokens
//! signed with RS256 under a JWKS whose key can rotate.
//!
//! Who signs in is the test's to say: `/authorize` with a `login_hint` naming a known person
//! signs that person in at once; without one it shows a page with one link per person, for a
//! browser to follow. Tests of refusals sign their own tokens ([`Provider::sign`],
//! [`Provider::forge`]) from [`Provider::claims_for`]. [`Browser`] plays the person's browser.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use tokio::sync::oneshot;

pub use browser::{Browser, Page, hidden_field};

mod browser;
mod flow;
mod keys;

use keys::KeyRing;

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

/// What the handlers share.
pub(crate) struct Shared {
    pub(crate) issuer: String,
    pub(crate) clients: Vec<Client>,
    pub(crate) people: Vec<Person>,
    pub(crate) keys: KeyRing,
    pub(crate) codes: flow::Codes,
    /// Applied to the next ID tokens the token endpoint issues, first first.
    pub(crate) misbehaviours: std::collections::VecDeque<Misbehaviour>,
}

pub(crate) type State = Arc<Mutex<Shared>>;

pub(crate) fn lock(state: &State) -> std::sync::MutexGuard<'_, Shared> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Seconds since the Unix epoch, now.
pub(crate) fn unix_now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// A running provider; stops when dropped.
#[derive(Debug)]
pub struct Provider {
    issuer: String,
    state: State,
    stop: Option<oneshot::Sender<()>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").field("issuer", &self.issuer).finish_non_exhaustive()
    }
}

impl Provider {
    /// Starts a provider on a free loopback port, knowing `clients` and `people`.
    pub async fn start(clients: Vec<Client>, people: Vec<Person>) -> Result<Provider, Error> {
        Provider::start_at("127.0.0.1:0".parse().map_err(std::io::Error::other)?, clients, people).await
    }

    /// Starts a provider at `addr` (an issuer a relying party was told of before it served).
    pub async fn start_at(
        addr: std::net::SocketAddr,
        clients: Vec<Client>,
        people: Vec<Person>,
    ) -> Result<Provider, Error> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let issuer = format!("http://{}", listener.local_addr()?);
        let state: State = Arc::new(Mutex::new(Shared {
            issuer: issuer.clone(),
            clients,
            people,
            keys: KeyRing::new()?,
            codes: flow::Codes::default(),
            misbehaviours: Default::default(),
        }));
        let (stop, stopped) = oneshot::channel::<()>();
        let app = flow::routes(state.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await;
        });
        Ok(Provider { issuer, state, stop: Some(stop) })
    }

    /// The issuer: `http://127.0.0.1:PORT`, under which the discovery document is.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The relying parties it knows.
    pub fn clients(&self) -> Vec<Client> {
        lock(&self.state).clients.clone()
    }

    /// The people it knows.
    pub fn people(&self) -> Vec<Person> {
        lock(&self.state).people.clone()
    }

    /// The `kid` new tokens are signed under.
    pub fn current_kid(&self) -> String {
        lock(&self.state).keys.current().kid.clone()
    }

    /// Publishes a new key and signs with it from now on; the previous key stays in the JWKS
    /// until [`Provider::retire_old_keys`].
    pub fn rotate_key(&self) -> Result<(), Error> {
        lock(&self.state).keys.rotate()
    }

    /// Drops every key but the current one from the JWKS.
    pub fn retire_old_keys(&self) {
        lock(&self.state).keys.retire();
    }

    /// The claims of an ID token for `subject` issued to `client_id` now, as the token endpoint
    /// would make them (with `nonce` if given), for a test to change before signing; `None` for
    /// someone the provider does not know.
    pub fn claims_for(&self, subject: &str, client_id: &str, nonce: Option<&str>) -> Option<Value> {
        let shared = lock(&self.state);
        let person = shared.people.iter().find(|p| p.subject == subject)?;
        Some(flow::id_claims(&shared.issuer, person, client_id, nonce, unix_now()))
    }

    /// `claims` signed with the current published key.
    pub fn sign(&self, claims: &Value) -> Result<String, Error> {
        lock(&self.state).keys.current().sign(claims)
    }

    /// `claims` signed with a key this provider never publishes, under a `kid` of its own.
    pub fn forge(&self, claims: &Value) -> Result<String, Error> {
        lock(&self.state).keys.stranger().sign(claims)
    }

    /// Makes the next ID token the token endpoint issues wrong in the way named.
    pub fn misbehave(&self, how: Misbehaviour) {
        lock(&self.state).misbehaviours.push_back(how);
    }

    /// The JWKS as served.
    pub fn jwks(&self) -> Value {
        lock(&self.state).keys.jwks()
    }

    /// How many codes were handed out and how many were redeemed for tokens.
    pub fn codes(&self) -> (u64, u64) {
        let shared = lock(&self.state);
        (shared.codes.issued, shared.codes.redeemed)
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A discovery document for `issuer`.
pub(crate) fn discovery(issuer: &str) -> Value {
    json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "jwks_uri": format!("{issuer}/jwks"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "scopes_supported": ["openid", "email", "profile", "groups"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "code_challenge_methods_supported": ["S256"],
        "claims_supported": ["sub", "iss", "aud", "exp", "iat", "nonce", "email", "email_verified", "name", "groups"],
        "authorization_response_iss_parameter_supported": true,
    })
}
