//! Tokens for agents on other machines: made, listed and revoked by the person (from the
//! window, the CLI or the gateway with the person's token), and checked on every gateway
//! request against the live ones in memory.

use beckon_core::{Audience, RequestId};
use beckon_store::{NewToken, TokenId, TokenKind};

use super::handle::{Admin, Beckon};
use crate::api::{CreatedToken, TokenView, token_view};
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::live_tokens::{LiveTokens, TokenHolder};
use crate::runtime::Records;
use crate::token_secret;

/// The agents' tokens and a team server's admin token: made, listed, revoked, and checked on
/// every gateway request against the live ones in memory.
#[derive(Debug, Clone, Copy)]
pub struct Tokens<'a> {
    records: &'a Records,
    clock: &'a dyn Clock,
    /// The live tokens, checked without the database.
    live: &'a LiveTokens,
    /// A team server's admin token, on PostgreSQL only.
    admin: Option<&'a Admin>,
}

impl Beckon {
    /// The tokens.
    pub fn tokens(&self) -> Tokens<'_> {
        Tokens { records: &self.rt.records, clock: &*self.rt.clock, live: &self.tokens, admin: self.admin.as_deref() }
    }
}

impl Tokens<'_> {
    /// Makes a token named `name` (1 to 40 letters, digits, `-`, `_`, `.`; unique among live
    /// tokens) of `kind`. Returns it with its secret, which is shown this once: only its hash is
    /// kept. It is accepted from the moment this returns.
    pub async fn create(self, name: &str, kind: TokenKind) -> Result<CreatedToken> {
        self.create_owned(name, kind, None).await
    }

    /// As [`Beckon::create_token`], for a token that asks on behalf of `owner` (a person or
    /// group on a team server): what it asks is addressed to them.
    pub async fn create_owned(self, name: &str, kind: TokenKind, owner: Option<Audience>) -> Result<CreatedToken> {
        token_secret::check_name(name).map_err(Error::InvalidInput)?;
        let secret = match kind {
            TokenKind::AskOnly => token_secret::ask_only(rand::random()),
        };
        let new = NewToken {
            name: name.to_owned(),
            kind,
            secret_hash: token_secret::hash(&secret),
            owner,
            at_ms: self.clock.now_ms(),
        };
        let record = self.records.write(move |tx| tx.create_token(&new)).await?;
        let token = token_view(&record);
        self.live.insert(record);
        tracing::info!(token = %token.name, "token made");
        Ok(CreatedToken { token, secret })
    }

    /// The live tokens, newest first (revoked ones are not listed).
    pub async fn list(self) -> Result<Vec<TokenView>> {
        let records = self.records.call(|store| store.read().tokens(false)).await?;
        Ok(records.iter().map(token_view).collect())
    }

    /// Revokes the live token named `name`: it is refused from the moment this returns (it is
    /// refused already while the revocation is written). [`Error::TokenNotFound`] when no live
    /// token has that name.
    pub async fn revoke(self, name: &str) -> Result<TokenView> {
        let held = self.live.remove(name);
        let at_ms = self.clock.now_ms();
        let owned = name.to_owned();
        match self.records.write(move |tx| tx.revoke_token(&owned, at_ms)).await {
            Ok(Some(record)) => {
                tracing::info!(token = %record.name, "token revoked");
                Ok(token_view(&record))
            }
            Ok(None) => Err(Error::TokenNotFound(name.to_owned())),
            Err(err) => {
                // Still live in the store, so live here too.
                if let Some(record) = held {
                    self.live.insert(record);
                }
                Err(err)
            }
        }
    }

    /// Who holds `secret`, when it is a live token's; checked in memory, never in the
    /// database. A token's use is written at most once a minute, without waiting for it.
    pub fn holder(self, secret: &str) -> Option<TokenHolder> {
        let now_ms = self.clock.now_ms();
        let (holder, record_use) = self.live.check(secret, now_ms)?;
        if record_use {
            let id = holder.id;
            self.records.write_detached("token use", move |tx| tx.token_used(id, now_ms));
        }
        Some(holder)
    }

    /// The key the gateway proves it knows a live token (or a team server's admin token) with,
    /// for the token `hint` names (see [`token_secret`]); `None` when no such token has that
    /// hint.
    pub fn proof_key(self, hint: &str) -> Option<String> {
        self.live.proof_key(hint).or_else(|| self.admin_proof_key(hint))
    }

    /// Whether `secret` is a team server's admin token (compared by hash, in constant time).
    pub fn is_admin(self, secret: &str) -> bool {
        let Some(admin) = self.admin else { return false };
        let hash = token_secret::hash(secret);
        hash.iter().zip(admin.hash.iter()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }

    /// The key the gateway proves it knows the admin token with, when `hint` names it (see
    /// [`crate::token_secret`]): a client holding the admin token checks a replica with it
    /// before sending it, as one holding an ask-only token does.
    fn admin_proof_key(self, hint: &str) -> Option<String> {
        let admin = self.admin?;
        (token_secret::hint(&admin.hash) == hint).then(|| token_secret::proof_key(&admin.hash))
    }

    /// The admin token this start made (the team server's first), once: it is kept nowhere
    /// but in the hands of whoever is shown it.
    pub fn take_new_admin(self) -> Option<String> {
        self.admin?.made.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()
    }

    /// Who asked question `id`: a token, a signed-in person, or neither (the person's own
    /// token, or Beckon itself); an unknown question was asked by no one.
    pub async fn asker(self, id: RequestId) -> Result<Asker> {
        self.records
            .call(move |store| {
                let read = store.read();
                Ok(match (read.asked_by(id)?, read.asking_person(id)?) {
                    (Some(token), _) => Asker::Token(token),
                    (None, Some(subject)) => Asker::Person(subject),
                    (None, None) => Asker::Owner,
                })
            })
            .await
    }

    /// Whom the live token `id` asks for, if anyone in particular.
    pub fn owner(self, id: TokenId) -> Option<Audience> {
        self.live.owner_of(id)
    }

    /// Whether token `token` asked question `id`. An unknown question was asked by no token.
    pub async fn asked_by(self, id: RequestId, token: TokenId) -> Result<bool> {
        let asker = self.records.call(move |store| store.read().asked_by(id)).await?;
        Ok(asker == Some(token))
    }
}

/// Who asked a question: only they withdraw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asker {
    /// An ask-only token, by its id.
    Token(TokenId),
    /// A person signed in on a team server, by their subject.
    Person(String),
    /// The person's own token (on a team server, the admin token), or Beckon itself.
    Owner,
}
