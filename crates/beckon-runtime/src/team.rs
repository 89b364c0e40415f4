//! What a team server's replicas share beyond the store's rows: the admin token (made at the
//! first start of the first replica, kept only as its hash, accepted by every replica) and the
//! agents' tokens, which each replica reloads so one made or revoked through another is known.

use std::sync::Arc;
use std::time::Duration;

use crate::db::Db;
use crate::error::Result;
use crate::live_tokens::LiveTokens;
use crate::stop::Stop;
use crate::token_secret;

/// The setting that keeps the admin token's SHA-256 (hex).
const ADMIN_TOKEN_HASH: &str = "admin_token_sha256";
/// How often a replica reloads the agents' tokens: a token revoked through another replica is
/// refused here within this.
pub(crate) const TOKENS_RELOAD: Duration = Duration::from_secs(1);

/// The admin token: its hash, and the token itself when this start made it (to be shown once).
#[derive(Debug)]
pub(crate) struct AdminToken {
    pub(crate) hash: [u8; 32],
    pub(crate) made: Option<String>,
}

/// Reads the team's admin token, making it when there is none yet (replicas starting together
/// make one between them: the first write stands).
pub(crate) async fn admin_token(db: &Db) -> Result<AdminToken> {
    let token = token_secret::admin(rand::random());
    let hash = hex::encode(token_secret::hash(&token));
    let (made, stored) = db
        .write(move |tx| {
            let made = tx.set_setting_if_absent(ADMIN_TOKEN_HASH, &hash)?;
            let stored = tx.read().setting(ADMIN_TOKEN_HASH)?.unwrap_or_default();
            Ok((made, stored))
        })
        .await?;
    let mut bytes = [0u8; 32];
    // A hash that does not read back (edited by hand) matches no token.
    if let Ok(decoded) = hex::decode(&stored)
        && decoded.len() == 32
    {
        bytes.copy_from_slice(&decoded);
    }
    Ok(AdminToken { hash: bytes, made: made.then_some(token) })
}

/// Reloads the agents' tokens every [`TOKENS_RELOAD`] until the runtime stops.
pub(crate) async fn reload_tokens(db: Db, tokens: Arc<LiveTokens>, stop: Stop) {
    loop {
        tokio::select! {
            () = tokio::time::sleep(TOKENS_RELOAD) => {}
            () = stop.stopping() => return,
        }
        match db.call(|store| store.read().tokens(false)).await {
            Ok(records) => tokens.replace(records),
            Err(err) => tracing::warn!(%err, "cannot reload the tokens"),
        }
    }
}
