//! The OS keyring, where a team inbox's session secret is kept when there is one: the
//! freedesktop Secret Service over D-Bus on Linux and the BSDs, the Keychain on macOS, the
//! Credential Manager on Windows. Behind a small trait, so the file's fallback and the moving of
//! old secrets out of it are tested with no keyring at all.
//!
//! Every call blocks (a D-Bus round trip, or a prompt to unlock the keyring): call it from a
//! blocking thread, never from an async task's.

/// Each entry's service; its account is the inbox's id in this app.
const SERVICE: &str = "dev.beckon.desktop.team-inbox";

/// A place to keep secrets by inbox id.
pub trait Keyring: Send + Sync + std::fmt::Debug {
    /// Inbox `inbox`'s secret; `None` when the keyring holds none for it.
    fn read(&self, inbox: &str) -> Result<Option<String>, KeyringError>;
    /// Keeps `secret` as inbox `inbox`'s, replacing one it had.
    fn write(&self, inbox: &str, secret: &str) -> Result<(), KeyringError>;
    /// Deletes inbox `inbox`'s secret; done too when there was none.
    fn delete(&self, inbox: &str) -> Result<(), KeyringError>;
}

/// Why the keyring was not used. Carries nothing of a secret: the `keyring` crate's own error can
/// hold what it read (`BadEncoding`), so it is not kept whole.
#[derive(Debug, thiserror::Error)]
pub enum KeyringError {
    /// No keyring answered or it refused: no session bus, no Secret Service on it, a locked
    /// keyring whose unlocking was dismissed, no access.
    #[error("the OS keyring cannot be used: {0}")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The keyring holds something for this inbox that is not one secret of this app's (several
    /// entries, or bytes that are not text).
    #[error("the OS keyring holds an unreadable entry for this inbox")]
    Unreadable,
    /// The keyring refused the entry's name or size.
    #[error("the OS keyring refused the entry: {0}")]
    Refused(String),
}

impl KeyringError {
    /// This error from the `keyring` crate, which is not "no entry" (a caller's `None`).
    fn from_os(err: keyring::Error) -> KeyringError {
        match err {
            keyring::Error::PlatformFailure(err) | keyring::Error::NoStorageAccess(err) => {
                KeyringError::Unavailable(err)
            }
            keyring::Error::BadEncoding(_) | keyring::Error::Ambiguous(_) => KeyringError::Unreadable,
            keyring::Error::TooLong(name, limit) => {
                KeyringError::Refused(format!("{name} is longer than the keyring's {limit} characters"))
            }
            keyring::Error::Invalid(name, reason) => KeyringError::Refused(format!("{name}: {reason}")),
            // `NoEntry` is a caller's `None` and does not come here. A kind the crate's
            // non-exhaustive error gains later is only named: its text could carry what it read.
            _ => KeyringError::Refused("an error the keyring crate does not describe".into()),
        }
    }
}

/// The OS keyring of the session this app runs in (on Linux, the Secret Service on
/// `DBUS_SESSION_BUS_ADDRESS`).
#[derive(Debug, Default)]
pub struct OsKeyring;

impl OsKeyring {
    fn entry(inbox: &str) -> Result<keyring::Entry, KeyringError> {
        keyring::Entry::new(SERVICE, inbox).map_err(KeyringError::from_os)
    }
}

impl Keyring for OsKeyring {
    fn read(&self, inbox: &str) -> Result<Option<String>, KeyringError> {
        match OsKeyring::entry(inbox)?.get_password() {
            Ok(secret) => Ok(Some(secret)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(err) => Err(KeyringError::from_os(err)),
        }
    }

    fn write(&self, inbox: &str, secret: &str) -> Result<(), KeyringError> {
        OsKeyring::entry(inbox)?.set_password(secret).map_err(KeyringError::from_os)
    }

    fn delete(&self, inbox: &str) -> Result<(), KeyringError> {
        match OsKeyring::entry(inbox)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(err) => Err(KeyringError::from_os(err)),
        }
    }
}

#[cfg(test)]
pub use memory::MemoryKeyring;

#[cfg(test)]
mod memory {
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Mutex, MutexGuard, PoisonError};

    use super::{Keyring, KeyringError};

    /// A keyring in memory, for tests: reachable or not, and what it holds.
    #[derive(Debug, Default)]
    pub struct MemoryKeyring {
        /// Whether every call fails as an unreachable keyring's does.
        pub unreachable: AtomicBool,
        /// What it holds, by inbox id.
        pub entries: Mutex<BTreeMap<String, String>>,
        /// How many calls were made to it, reached or not.
        pub calls: AtomicUsize,
    }

    impl MemoryKeyring {
        /// A keyring nobody can reach.
        pub fn unreachable() -> MemoryKeyring {
            MemoryKeyring { unreachable: AtomicBool::new(true), ..MemoryKeyring::default() }
        }

        /// What it holds now.
        pub fn held(&self) -> BTreeMap<String, String> {
            self.entries.lock().unwrap_or_else(PoisonError::into_inner).clone()
        }

        fn reach(&self) -> Result<MutexGuard<'_, BTreeMap<String, String>>, KeyringError> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            if self.unreachable.load(Ordering::SeqCst) {
                return Err(KeyringError::Unavailable("no session bus".into()));
            }
            Ok(self.entries.lock().unwrap_or_else(PoisonError::into_inner))
        }
    }

    impl Keyring for MemoryKeyring {
        fn read(&self, inbox: &str) -> Result<Option<String>, KeyringError> {
            Ok(self.reach()?.get(inbox).cloned())
        }

        fn write(&self, inbox: &str, secret: &str) -> Result<(), KeyringError> {
            self.reach()?.insert(inbox.to_owned(), secret.to_owned());
            Ok(())
        }

        fn delete(&self, inbox: &str) -> Result<(), KeyringError> {
            self.reach()?.remove(inbox);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keyring_crates_errors_keep_nothing_they_read() {
        let read = KeyringError::from_os(keyring::Error::BadEncoding(b"hunter2-session".to_vec()));
        assert!(matches!(read, KeyringError::Unreadable));
        assert!(!format!("{read:?} {read}").contains("hunter2"));
        let locked = KeyringError::from_os(keyring::Error::NoStorageAccess("the collection is locked".into()));
        assert!(matches!(locked, KeyringError::Unavailable(_)));
        assert!(locked.to_string().contains("locked"), "{locked}");
    }
}
