//! The team inboxes the app is connected to. What is not secret — each inbox's id, name, team
//! server and person — is kept in `team-inboxes.json` in the data folder; each one's session
//! secret, which acts as the person (it answers as them, allowing tool calls included), in the
//! OS keyring ([`super::secrets`]).
//!
//! Where no keyring can be used (no session bus, no Secret Service on it, or it refuses), a
//! secret is kept in the file instead, which is why the file is always written 0600; the log says
//! so once. A secret found in the file — kept there so, or by a version of the app from before
//! the keyring — is moved into the keyring when one can be used, and the file written again
//! without it.
//!
//! Reading and writing the file never touches the keyring. What does ([`Saved::fetch_secrets`],
//! [`Saved::keep`], [`Saved::forget`]) blocks, and is called from a blocking thread.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use beckon_gateway::team_inbox::SignedInAs;
use serde::{Deserialize, Serialize};

use super::secrets::{Keyring, KeyringError};

/// The file's name in the data folder.
const FILE: &str = "team-inboxes.json";

/// One team inbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedInbox {
    /// Its id in this app (and its entry's name in the keyring).
    pub id: String,
    /// The name the person gave it, shown beside its questions.
    pub name: String,
    /// The team server's URL.
    pub url: String,
    /// The session secret, while signed in.
    pub secret: Option<Secret>,
    /// Who it is signed in as.
    pub person: Option<Person>,
}

/// A session secret, and where it is kept.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret {
    value: String,
    kept: Kept,
}

/// Where a secret is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// In the OS keyring; the file does not have it.
    Keyring,
    /// In the file: no keyring could be used.
    File,
}

impl Secret {
    /// The secret itself.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// Where it is kept.
    pub fn kept(&self) -> Kept {
        self.kept
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secret acts as the person: never in logs.
        f.debug_struct("Secret").field("kept", &self.kept).finish_non_exhaustive()
    }
}

/// Who an inbox is signed in as.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    pub subject: String,
    pub name: Option<String>,
    pub email: Option<String>,
}

impl From<SignedInAs> for Person {
    fn from(person: SignedInAs) -> Self {
        Person { subject: person.subject, name: person.name, email: person.email }
    }
}

/// One inbox as the file has it (the shape it always had: a file from before the keyring reads
/// as one).
#[derive(Serialize, Deserialize)]
struct Record {
    id: String,
    name: String,
    url: String,
    /// Only a secret kept in the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    secret: Option<String>,
    person: Option<Person>,
}

/// The team inboxes saved in one data folder, and the keyring their secrets go to.
#[derive(Debug)]
pub struct Saved {
    path: PathBuf,
    keyring: Arc<dyn Keyring>,
    /// Set when the keyring could not be reached: from then on, until the app starts again,
    /// secrets are kept in the file and the keyring is not asked to keep or read them, so one
    /// that does not answer is waited for once, not once per inbox.
    file_only: AtomicBool,
}

impl Saved {
    /// The inboxes saved in `data_dir`, their secrets kept in `keyring` when it can be used.
    pub fn new(data_dir: &Path, keyring: Arc<dyn Keyring>) -> Saved {
        Saved { path: data_dir.join(FILE), keyring, file_only: AtomicBool::new(false) }
    }

    /// The inboxes as the file has them: a secret kept in the keyring is not read yet
    /// ([`Saved::fetch_secrets`]). None when the file is missing or unreadable (said in the log).
    pub fn read(&self) -> Vec<SavedInbox> {
        let records: Vec<Record> = match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|err| {
                tracing::warn!(%err, path = %self.path.display(), "the team inboxes cannot be read; starting without them");
                Vec::new()
            }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(err) => {
                tracing::warn!(%err, path = %self.path.display(), "the team inboxes cannot be read; starting without them");
                Vec::new()
            }
        };
        records
            .into_iter()
            .map(|record| SavedInbox {
                id: record.id,
                name: record.name,
                url: record.url,
                secret: record.secret.map(|value| Secret { value, kept: Kept::File }),
                person: record.person,
            })
            .collect()
    }

    /// Completes what [`Saved::read`] gave: each inbox's secret read from the keyring, and each
    /// one the file held moved into it. True when one moved: the file is to be written again
    /// ([`Saved::save`]) to be rid of it.
    pub fn fetch_secrets(&self, inboxes: &mut [SavedInbox]) -> bool {
        let mut moved = false;
        for inbox in inboxes {
            inbox.secret = match inbox.secret.take() {
                Some(Secret { value, kept: Kept::File }) => {
                    let secret = self.keep(&inbox.id, value);
                    moved |= secret.kept == Kept::Keyring;
                    Some(secret)
                }
                Some(secret) => Some(secret),
                None => self.read_keyring(&inbox.id),
            };
        }
        moved
    }

    /// Keeps `secret` as inbox `inbox`'s: in the keyring, else (it cannot be used) in the file
    /// once the inboxes are saved.
    pub fn keep(&self, inbox: &str, secret: String) -> Secret {
        if !self.file_only.load(Ordering::SeqCst) {
            match self.keyring.write(inbox, &secret) {
                Ok(()) => return Secret { value: secret, kept: Kept::Keyring },
                Err(err) => self.failed(inbox, &err),
            }
        }
        Secret { value: secret, kept: Kept::File }
    }

    /// Deletes inbox `inbox`'s secret from the keyring (it is being removed). Asked even when the
    /// keyring failed before, since it may hold the secret from before it did; the file loses
    /// the secret when the inboxes are saved without it.
    pub fn forget(&self, inbox: &str) -> Result<(), KeyringError> {
        self.keyring.delete(inbox)
    }

    /// Writes the inboxes, whole and privately (0600): a secret kept in the keyring is left out.
    pub fn save(&self, inboxes: &[SavedInbox]) -> std::io::Result<()> {
        let records: Vec<Record> = inboxes
            .iter()
            .map(|inbox| Record {
                id: inbox.id.clone(),
                name: inbox.name.clone(),
                url: inbox.url.clone(),
                secret: inbox.secret.as_ref().filter(|secret| secret.kept == Kept::File).map(|s| s.value.clone()),
                person: inbox.person.clone(),
            })
            .collect();
        let json = serde_json::to_vec_pretty(&records).map_err(std::io::Error::other)?;
        beckon_runtime::private_file::write(&self.path, &json)
    }

    /// Inbox `inbox`'s secret in the keyring, if it can be read.
    fn read_keyring(&self, inbox: &str) -> Option<Secret> {
        if self.file_only.load(Ordering::SeqCst) {
            return None;
        }
        match self.keyring.read(inbox) {
            Ok(secret) => secret.map(|value| Secret { value, kept: Kept::Keyring }),
            Err(err) => {
                self.failed(inbox, &err);
                None
            }
        }
    }

    /// Says why the keyring failed for inbox `inbox`: once for a keyring that cannot be reached
    /// (and the file is used from then on), each time for an entry it refused.
    fn failed(&self, inbox: &str, err: &KeyringError) {
        match err {
            KeyringError::Unavailable(_) => {
                if !self.file_only.swap(true, Ordering::SeqCst) {
                    tracing::warn!(
                        %err,
                        path = %self.path.display(),
                        "no OS keyring can be used: team inboxes' session secrets are kept in this file (0600)"
                    );
                }
            }
            KeyringError::Unreadable | KeyringError::Refused(_) => {
                tracing::warn!(%err, inbox, "the OS keyring failed for a team inbox's session secret");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::team::secrets::MemoryKeyring;

    fn inbox(id: &str, secret: Option<&str>) -> SavedInbox {
        SavedInbox {
            id: id.into(),
            name: format!("Acme {id}"),
            url: "https://beckon.acme.example".into(),
            secret: secret.map(|value| Secret { value: value.into(), kept: Kept::File }),
            person: Some(Person { subject: "ada".into(), name: Some("Ada".into()), email: None }),
        }
    }

    fn file_of(dir: &Path) -> String {
        std::fs::read_to_string(dir.join(FILE)).unwrap()
    }

    #[cfg(unix)]
    fn mode_of(dir: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(dir.join(FILE)).unwrap().permissions().mode() & 0o777
    }

    /// Starts the app again on `dir`: the file read, then the secrets fetched, and the file saved
    /// again when one moved (as the app does).
    fn start(dir: &Path, keyring: &Arc<MemoryKeyring>) -> Vec<SavedInbox> {
        let saved = Saved::new(dir, keyring.clone());
        let mut inboxes = saved.read();
        if saved.fetch_secrets(&mut inboxes) {
            saved.save(&inboxes).unwrap();
        }
        inboxes
    }

    #[test]
    fn with_no_keyring_the_secret_is_kept_privately_in_the_file_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let keyring = Arc::new(MemoryKeyring::unreachable());
        let saved = Saved::new(dir.path(), keyring.clone());
        assert!(start(dir.path(), &keyring).is_empty());
        let mut acme = inbox("t1", None);
        acme.secret = Some(saved.keep("t1", "s".repeat(64)));
        assert_eq!(acme.secret.as_ref().map(Secret::kept), Some(Kept::File));
        saved.save(std::slice::from_ref(&acme)).unwrap();
        assert!(file_of(dir.path()).contains(&"s".repeat(64)));
        #[cfg(unix)]
        assert_eq!(mode_of(dir.path()), 0o600);

        assert_eq!(start(dir.path(), &keyring), vec![acme.clone()]);
        assert!(!format!("{acme:?}").contains("sss"), "no secret in Debug");
        std::fs::write(dir.path().join(FILE), b"{not json").unwrap();
        assert!(start(dir.path(), &keyring).is_empty());
    }

    #[test]
    fn a_keyring_that_cannot_be_reached_is_asked_once_not_once_per_inbox() {
        let dir = tempfile::tempdir().unwrap();
        let keyring = Arc::new(MemoryKeyring::unreachable());
        let saved = Saved::new(dir.path(), keyring.clone());
        let inboxes = [inbox("t1", Some("one")), inbox("t2", None), inbox("t3", Some("three"))];
        saved.save(&inboxes).unwrap();
        assert_eq!(start(dir.path(), &keyring), inboxes);
        assert_eq!(keyring.calls.load(Ordering::SeqCst), 1);
        assert!(file_of(dir.path()).contains("three"), "the file still holds what it held");
    }

    #[test]
    fn with_a_keyring_the_file_holds_no_secret_and_the_keyring_gives_it_back() {
        let dir = tempfile::tempdir().unwrap();
        let keyring = Arc::new(MemoryKeyring::default());
        let saved = Saved::new(dir.path(), keyring.clone());
        let mut acme = inbox("t1", None);
        acme.secret = Some(saved.keep("t1", "s".repeat(64)));
        assert_eq!(acme.secret.as_ref().map(Secret::kept), Some(Kept::Keyring));
        saved.save(std::slice::from_ref(&acme)).unwrap();

        let file = file_of(dir.path());
        assert!(!file.contains("sss") && !file.contains("secret"), "{file}");
        assert!(file.contains("beckon.acme.example") && file.contains("ada"), "{file}");
        #[cfg(unix)]
        assert_eq!(mode_of(dir.path()), 0o600);
        assert_eq!(keyring.held().get("t1"), Some(&"s".repeat(64)));

        assert_eq!(start(dir.path(), &keyring), vec![acme]);
        saved.forget("t1").unwrap();
        assert!(keyring.held().is_empty());
        let after = start(dir.path(), &keyring);
        assert_eq!(after[0].secret, None, "forgotten: signed out");
    }

    #[test]
    fn secrets_in_a_file_from_before_move_into_the_keyring() {
        let dir = tempfile::tempdir().unwrap();
        // The file as the app wrote it before the keyring: every secret in it, null when none.
        let old = serde_json::json!([
            {"id": "t1", "name": "Acme", "url": "https://beckon.acme.example", "secret": "acme-secret",
             "person": {"subject": "ada", "name": "Ada", "email": null}},
            {"id": "t2", "name": "Globex", "url": "https://beckon.globex.example", "secret": null, "person": null},
        ]);
        std::fs::write(dir.path().join(FILE), serde_json::to_vec_pretty(&old).unwrap()).unwrap();

        // No keyring this time: read as it was, and left as it was.
        let none = Arc::new(MemoryKeyring::unreachable());
        let read = start(dir.path(), &none);
        assert_eq!(read[0].secret.as_ref().map(|s| (s.value(), s.kept())), Some(("acme-secret", Kept::File)));
        assert_eq!(read[1].secret, None);
        assert!(file_of(dir.path()).contains("acme-secret"));

        // A keyring now: the secret moves into it, and out of the file.
        let keyring = Arc::new(MemoryKeyring::default());
        let moved = start(dir.path(), &keyring);
        assert_eq!(moved[0].secret.as_ref().map(|s| (s.value(), s.kept())), Some(("acme-secret", Kept::Keyring)));
        assert_eq!(moved[0].person, read[0].person);
        assert_eq!(moved[1].secret, None);
        assert_eq!(keyring.held().into_iter().collect::<Vec<_>>(), [("t1".to_owned(), "acme-secret".to_owned())]);
        let file = file_of(dir.path());
        assert!(!file.contains("acme-secret"), "{file}");
        assert!(file.contains("Acme") && file.contains("Globex"), "{file}");
        #[cfg(unix)]
        assert_eq!(mode_of(dir.path()), 0o600);

        // And it is read back from there.
        assert_eq!(start(dir.path(), &keyring), moved);
    }

    #[test]
    fn a_secret_kept_in_the_file_while_the_keyring_was_away_wins_over_the_keyrings_older_one() {
        let dir = tempfile::tempdir().unwrap();
        let keyring = Arc::new(MemoryKeyring::default());
        keyring.entries.lock().unwrap().insert("t1".into(), "old".into());
        Saved::new(dir.path(), keyring.clone()).save(&[inbox("t1", Some("new"))]).unwrap();
        let read = start(dir.path(), &keyring);
        assert_eq!(read[0].secret.as_ref().map(Secret::value), Some("new"));
        assert_eq!(keyring.held().get("t1").map(String::as_str), Some("new"));
        assert!(!file_of(dir.path()).contains("new"));
    }

    #[test]
    fn forgetting_asks_the_keyring_even_after_it_failed() {
        let dir = tempfile::tempdir().unwrap();
        let keyring = Arc::new(MemoryKeyring::default());
        let saved = Saved::new(dir.path(), keyring.clone());
        let kept = saved.keep("t1", "one".into());
        assert_eq!(kept.kept(), Kept::Keyring);
        keyring.unreachable.store(true, Ordering::SeqCst);
        assert_eq!(saved.keep("t2", "two".into()).kept(), Kept::File);
        keyring.unreachable.store(false, Ordering::SeqCst);
        assert_eq!(saved.keep("t3", "three".into()).kept(), Kept::File, "the file, until the app starts again");
        saved.forget("t1").unwrap();
        assert!(keyring.held().is_empty());
        keyring.unreachable.store(true, Ordering::SeqCst);
        assert!(matches!(saved.forget("t1"), Err(KeyringError::Unavailable(_))));
    }
}
