//! The install's callback signing secret: made at the first start, kept in the store's settings,
//! replaced when the person rotates it.

use std::sync::RwLock;

use crate::db::Db;
use crate::error::Result;

/// The setting holding the install's callback signing secret.
const SECRET_SETTING: &str = "callback_secret";

/// The install's callback signing secret: kept in the store's settings, read by every delivery,
/// replaced by a rotation. Never shown in `Debug` output.
pub(crate) struct CallbackSecret {
    current: RwLock<String>,
    /// One rotation at a time, so the store and memory always end up holding the same secret.
    rotating: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for CallbackSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallbackSecret(<redacted>)")
    }
}

/// A new random secret: 32 bytes, hex.
fn new_secret() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

impl CallbackSecret {
    /// The stored secret, or a new one stored now when the install has none yet.
    pub(crate) async fn load(db: &Db) -> Result<CallbackSecret> {
        let secret = db
            .write(|tx| {
                if let Some(secret) = tx.read().setting(SECRET_SETTING)? {
                    return Ok(secret);
                }
                let secret = new_secret();
                tx.set_setting(SECRET_SETTING, &secret)?;
                Ok(secret)
            })
            .await?;
        Ok(CallbackSecret { current: RwLock::new(secret), rotating: tokio::sync::Mutex::new(()) })
    }

    /// The secret deliveries are signed with now.
    pub(crate) fn current(&self) -> String {
        self.current.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Replaces the secret with a new random one: stored first, so a crash right after keeps
    /// the secret the caller was given, then used for every later delivery.
    pub(crate) async fn rotate(&self, db: &Db) -> Result<String> {
        let _one_at_a_time = self.rotating.lock().await;
        let secret = new_secret();
        let stored = secret.clone();
        db.write(move |tx| tx.set_setting(SECRET_SETTING, &stored)).await?;
        *self.current.write().unwrap_or_else(std::sync::PoisonError::into_inner) = secret.clone();
        tracing::info!("callback secret rotated");
        Ok(secret)
    }
}

/// The callback secret kept in the data folder `data_dir`, read from its database without
/// starting a runtime (read-only, beside a running app, which stores a rotated secret before it
/// uses it). `None` when the folder's database has none yet.
pub fn stored_secret(data_dir: &std::path::Path) -> Result<Option<String>> {
    let store = beckon_store::Store::open_read_only(crate::RuntimeConfig::new(data_dir).database_path())?;
    Ok(store.read().setting(SECRET_SETTING)?)
}
