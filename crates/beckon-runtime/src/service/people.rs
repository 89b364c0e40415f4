//! People signed in on a team server through its identity provider: a sign-in kept until the
//! provider sends the person back, then a browser session in a cookie. Only the SHA-256 of the
//! cookie is stored, so the table cannot be replayed as cookies; the CSRF token a page must send
//! with every write is derived from the cookie, so nothing more is stored for it.

use beckon_store::{ListedSession, NewSignIn, PersonSession, SessionKind, SignedIn, TakenSignIn};
use sha2::{Digest, Sha256};

use super::handle::Beckon;
use crate::clock::Clock;
use crate::config::RuntimeConfig;
use crate::error::Result;
use crate::runtime::Records;
use crate::token_secret;

/// How long a sign-in may take, from leaving for the provider to coming back.
pub const SIGN_IN_LIFETIME_MS: i64 = 10 * 60 * 1000;
/// The most sign-ins begun at the login page kept at once (the oldest go first): far more than a
/// team signs in within [`SIGN_IN_LIFETIME_MS`], and a bound on what a flood of logins leaves.
pub const MAX_PENDING_SIGN_INS: usize = 1000;

/// A browser session, as a request's cookie names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedInSession {
    /// Who it is.
    pub person: SignedIn,
    /// The SHA-256 of its cookie or bearer secret: what is kept for it (a browser's push
    /// subscription goes with it).
    pub id_hash: [u8; 32],
    /// What every write from this session must carry in `X-CSRF-Token`.
    pub csrf_token: String,
    pub expires_at_ms: i64,
}

/// A browser session just opened: the cookie's value (shown to the browser only) and until when.
#[derive(Clone, PartialEq, Eq)]
pub struct OpenedSession {
    pub cookie: String,
    pub expires_at_ms: i64,
}

impl std::fmt::Debug for OpenedSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The cookie is a credential: never in logs or panics.
        f.debug_struct("OpenedSession").field("expires_at_ms", &self.expires_at_ms).finish_non_exhaustive()
    }
}

/// The CSRF token for the session with this cookie: a page learns it from `/v1/me` and sends it
/// back; a page on another site can do neither.
pub fn csrf_token(cookie: &str) -> String {
    let mut digest = Sha256::new();
    digest.update(b"beckon csrf token\0");
    digest.update(cookie.as_bytes());
    hex::encode(digest.finalize())
}

/// People signing in on a team server, and their sessions (a browser's, a connected app's).
#[derive(Debug, Clone, Copy)]
pub struct People<'a> {
    pub(super) records: &'a Records,
    pub(super) clock: &'a dyn Clock,
    /// How long a session lasts.
    pub(super) config: &'a RuntimeConfig,
}

impl Beckon {
    /// People signing in, and their sessions.
    pub fn people(&self) -> People<'_> {
        People { records: &self.rt.records, clock: &*self.rt.clock, config: &self.rt.config }
    }
}

impl People<'_> {
    /// Keeps a sign-in under way (its `secret` is what the gateway must have back) until the
    /// person returns, for [`SIGN_IN_LIFETIME_MS`]; `next` is where they go afterwards.
    pub async fn begin_sign_in(self, state: String, secret: String, next: String) -> Result<()> {
        let at_ms = self.clock.now_ms();
        let sign_in = NewSignIn { state, secret, next, at_ms, expires_at_ms: at_ms + SIGN_IN_LIFETIME_MS };
        self.records
            .write(move |tx| {
                tx.begin_sign_in(&sign_in)?;
                tx.cap_sign_ins(MAX_PENDING_SIGN_INS)?;
                Ok(())
            })
            .await
    }

    /// Takes back the sign-in under `state`, once: `None` when there is none, it was taken, or
    /// it expired.
    pub async fn take_sign_in(self, state: &str) -> Result<Option<TakenSignIn>> {
        let now_ms = self.clock.now_ms();
        let state = state.to_owned();
        self.records.write(move |tx| tx.take_sign_in(&state, now_ms)).await
    }

    /// Opens a session for `person`, held by `kind` (a browser, or a connected app): the secret
    /// to give it (a browser's cookie, an app's bearer token). It lasts the server's session
    /// lifetime.
    pub async fn open_session(self, person: SignedIn, kind: SessionKind) -> Result<OpenedSession> {
        let cookie = hex::encode(rand::random::<[u8; 32]>());
        let created_at_ms = self.clock.now_ms();
        let lifetime = i64::try_from(self.config.person_session_lifetime.as_millis()).unwrap_or(i64::MAX);
        let expires_at_ms = created_at_ms.saturating_add(lifetime);
        let subject = person.subject.clone();
        let id_hash = token_secret::hash(&cookie);
        let session = PersonSession { id_hash, person, created_at_ms, expires_at_ms };
        self.records
            .write(move |tx| {
                tx.open_person_session(&session)?;
                tx.mark_person_session(&id_hash, &kind)
            })
            .await?;
        tracing::info!(%subject, "signed in");
        Ok(OpenedSession { cookie, expires_at_ms })
    }

    /// Ends every session of the person with `subject`, on every replica at once (each looks
    /// sessions up in the database per request): how many there were.
    pub async fn end_sessions(self, subject: &str) -> Result<usize> {
        let subject = subject.to_owned();
        let ended = self.records.write(move |tx| tx.end_person_sessions(&subject)).await?;
        tracing::info!(ended, "a person's sessions were ended");
        Ok(ended)
    }

    /// Every open session, as an admin lists them.
    pub async fn open_sessions(self) -> Result<Vec<ListedSession>> {
        let now_ms = self.clock.now_ms();
        self.records.call(move |store| store.read().open_person_sessions(now_ms)).await
    }

    /// The open, unexpired browser session this cookie names.
    pub async fn session(self, cookie: &str) -> Result<Option<SignedInSession>> {
        let hash = token_secret::hash(cookie);
        let now_ms = self.clock.now_ms();
        let session = self.records.call(move |store| store.read().person_session(&hash, now_ms)).await?;
        Ok(session.map(|session| SignedInSession {
            person: session.person,
            id_hash: session.id_hash,
            csrf_token: csrf_token(cookie),
            expires_at_ms: session.expires_at_ms,
        }))
    }

    /// Signs out the browser session this cookie names; whether there was one.
    pub async fn close_session(self, cookie: &str) -> Result<bool> {
        let hash = token_secret::hash(cookie);
        self.records.write(move |tx| tx.close_person_session(&hash)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csrf_token_is_the_cookies_own_and_not_the_cookie() {
        let token = csrf_token("cookie-a");
        assert_eq!(token, csrf_token("cookie-a"));
        assert_ne!(token, csrf_token("cookie-b"));
        assert_ne!(token, hex::encode(token_secret::hash("cookie-a")), "the stored hash must not be the CSRF token");
        assert_eq!(token.len(), 64);
    }
}
