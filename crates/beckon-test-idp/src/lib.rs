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

use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::oneshot;

pub use browser::{Browser, Page, hidden_field};
pub use error::Error;
pub use misbehaviour::Misbehaviour;
pub use parties::{Client, Person};

mod browser;
mod codes;
mod error;
mod flow;
mod keys;
mod misbehaviour;
mod parties;
mod state;

use codes::Codes;
use flow::unix_now;
use keys::KeyRing;
use state::{Shared, State, lock};

/// A running provider; stops when dropped.
#[derive(Debug)]
pub struct Provider {
    issuer: String,
    state: State,
    stop: Option<oneshot::Sender<()>>,
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
            codes: Codes::default(),
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
