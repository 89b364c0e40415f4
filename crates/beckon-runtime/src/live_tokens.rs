//! The live tokens, in memory, by the hash of their secret: the gateway checks every request's
//! token here, never in the database. The store is the record; this is kept in step with it by
//! the service (loaded at start, changed on create and revoke), so a revoked token is refused
//! from the moment revoking it returns, whichever front end revoked it.
//!
//! Looking a hash up in a map is not constant-time, but what could leak is where a hash of the
//! secret falls among the live hashes, not the secret: finding a secret from its hash is the
//! hard problem SHA-256 is.

use std::collections::HashMap;
use std::sync::RwLock;
use std::sync::atomic::{AtomicI64, Ordering};

use beckon_core::Audience;
use beckon_store::{TokenId, TokenKind, TokenRecord};

use crate::token_secret;

/// How often a token's last use is written: at most once a minute, not per request.
pub(crate) const USE_RECORDED_EVERY_MS: i64 = 60_000;

/// Who holds a live token: what a request that carries it may act as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenHolder {
    /// The token's id (its name may be reused once it is revoked; its id never is).
    pub id: TokenId,
    /// Its name.
    pub name: String,
    /// What it may do.
    pub kind: TokenKind,
    /// The person or group it asks for, on a team server.
    pub owner: Option<Audience>,
}

/// A live token as kept in memory.
#[derive(Debug)]
struct Live {
    holder: TokenHolder,
    hint: String,
    proof_key: String,
    /// When its use was last written (Unix ms), or `i64::MIN` before it ever was.
    use_written_ms: AtomicI64,
}

/// The live tokens by hash.
#[derive(Debug, Default)]
pub(crate) struct LiveTokens {
    by_hash: RwLock<HashMap<[u8; 32], Live>>,
}

impl LiveTokens {
    /// The live ones among `records`.
    pub(crate) fn load(records: Vec<TokenRecord>) -> LiveTokens {
        let live = LiveTokens::default();
        for record in records.into_iter().filter(|record| record.revoked_at_ms.is_none()) {
            live.insert(record);
        }
        live
    }

    /// Adds a token just made.
    /// Makes the live tokens `records`' live ones (another replica of a team server made or
    /// revoked some); what is known of each token's last recorded use is kept.
    pub(crate) fn replace(&self, records: Vec<TokenRecord>) {
        let fresh = LiveTokens::load(records);
        let mut fresh_map = fresh.by_hash.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut tokens = self.write();
        for (hash, live) in fresh_map.iter_mut() {
            if let Some(known) = tokens.get(hash) {
                let used =
                    known.use_written_ms.load(Ordering::Relaxed).max(live.use_written_ms.load(Ordering::Relaxed));
                live.use_written_ms.store(used, Ordering::Relaxed);
            }
        }
        *tokens = fresh_map;
    }

    pub(crate) fn insert(&self, record: TokenRecord) {
        let live = Live {
            holder: TokenHolder { id: record.id, name: record.name, kind: record.kind, owner: record.owner },
            hint: token_secret::hint(&record.secret_hash),
            proof_key: token_secret::proof_key(&record.secret_hash),
            use_written_ms: AtomicI64::new(record.last_used_at_ms.unwrap_or(i64::MIN)),
        };
        self.write().insert(record.secret_hash, live);
    }

    /// Takes the live token named `name` out; what it held, to put back with [`insert`] if
    /// revoking fails (its creation time is not kept here, and reads as 0).
    ///
    /// [`insert`]: LiveTokens::insert
    pub(crate) fn remove(&self, name: &str) -> Option<TokenRecord> {
        let mut tokens = self.write();
        let hash = *tokens.iter().find(|(_, live)| live.holder.name == name)?.0;
        let live = tokens.remove(&hash)?;
        let used = live.use_written_ms.load(Ordering::Relaxed);
        Some(TokenRecord {
            id: live.holder.id,
            name: live.holder.name,
            kind: live.holder.kind,
            secret_hash: hash,
            owner: live.holder.owner,
            created_at_ms: 0,
            last_used_at_ms: (used != i64::MIN).then_some(used),
            revoked_at_ms: None,
        })
    }

    /// The holder of `secret` if it is a live token, and whether its use at `now_ms` is to be
    /// written (the first use a minute or more after the last one written).
    pub(crate) fn check(&self, secret: &str, now_ms: i64) -> Option<(TokenHolder, bool)> {
        if !token_secret::is_token(secret) {
            return None;
        }
        let tokens = self.read();
        let live = tokens.get(&token_secret::hash(secret))?;
        let written = live.use_written_ms.load(Ordering::Relaxed);
        // Only one of the requests that find the minute over writes it.
        let record = now_ms.saturating_sub(written) >= USE_RECORDED_EVERY_MS
            && live.use_written_ms.compare_exchange(written, now_ms, Ordering::Relaxed, Ordering::Relaxed).is_ok();
        Some((live.holder.clone(), record))
    }

    /// Whom the live token `id` asks for; `None` when it asks for no one in particular or is
    /// not live.
    pub(crate) fn owner_of(&self, id: TokenId) -> Option<Audience> {
        self.read().values().find(|live| live.holder.id == id).and_then(|live| live.holder.owner.clone())
    }

    /// The proof key of the live token `hint` names.
    pub(crate) fn proof_key(&self, hint: &str) -> Option<String> {
        self.read().values().find(|live| live.hint == hint).map(|live| live.proof_key.clone())
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<[u8; 32], Live>> {
        // A panic while holding the lock leaves the map whole (every change is one insert or
        // remove), so a poisoned lock is still good to use.
        self.by_hash.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<[u8; 32], Live>> {
        self.by_hash.write().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: i64, name: &str, secret: &str, revoked: Option<i64>) -> TokenRecord {
        TokenRecord {
            id: TokenId(id),
            name: name.into(),
            kind: TokenKind::AskOnly,
            secret_hash: token_secret::hash(secret),
            owner: None,
            created_at_ms: 0,
            last_used_at_ms: None,
            revoked_at_ms: revoked,
        }
    }

    #[test]
    fn only_a_live_tokens_secret_is_found() {
        let (devbox, old) = (token_secret::ask_only([1; 32]), token_secret::ask_only([2; 32]));
        let live = LiveTokens::load(vec![record(1, "devbox", &devbox, None), record(2, "old", &old, Some(5))]);
        assert_eq!(live.check(&devbox, 0).unwrap().0.name, "devbox");
        assert!(live.check(&old, 0).is_none(), "a revoked token");
        assert!(live.check(&token_secret::ask_only([3; 32]), 0).is_none(), "an unknown one");
        assert!(live.check(&devbox[..devbox.len() - 1], 0).is_none(), "a cut one");
        assert!(live.check("", 0).is_none());
        assert!(live.proof_key(&token_secret::hint(&token_secret::hash(&devbox))).is_some());
        assert!(live.proof_key(&token_secret::hint(&token_secret::hash(&old))).is_none());

        assert_eq!(live.remove("devbox").map(|r| r.id), Some(TokenId(1)));
        assert!(live.check(&devbox, 0).is_none(), "refused as soon as it is taken out");
        assert!(live.remove("devbox").is_none());
    }

    #[test]
    fn use_is_written_at_most_once_a_minute() {
        let secret = token_secret::ask_only([9; 32]);
        let live = LiveTokens::load(vec![record(1, "ci", &secret, None)]);
        let writes = |at: i64| live.check(&secret, at).unwrap().1;
        assert!(writes(1_000), "the first use");
        assert!(!writes(1_001));
        assert!(!writes(60_999), "a minute has not passed");
        assert!(writes(61_000), "a minute after the last write");
        assert!(!writes(61_000));
        let removed = live.remove("ci").unwrap();
        assert_eq!(removed.last_used_at_ms, Some(61_000));
        live.insert(removed);
        assert!(!writes(62_000), "putting it back keeps when its use was written");
    }
}
