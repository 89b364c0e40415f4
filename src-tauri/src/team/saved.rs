//! The team inboxes the app is connected to, kept in `team-inboxes.json` in the data folder
//! (0600: each holds a session secret that acts as the person).

use std::path::{Path, PathBuf};

use beckon_gateway::team_inbox::SignedInAs;
use serde::{Deserialize, Serialize};

/// The file's name in the data folder.
const FILE: &str = "team-inboxes.json";

/// One team inbox.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedInbox {
    /// Its id in this app.
    pub id: String,
    /// The name the person gave it, shown beside its questions.
    pub name: String,
    /// The team server's URL.
    pub url: String,
    /// The session secret, while signed in.
    pub secret: Option<String>,
    /// Who it is signed in as.
    pub person: Option<Person>,
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

impl std::fmt::Debug for SavedInbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secret acts as the person: never in logs.
        f.debug_struct("SavedInbox")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE)
}

/// The saved inboxes; none when the file is missing or unreadable (said in the log).
pub fn load(data_dir: &Path) -> Vec<SavedInbox> {
    let path = path(data_dir);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|err| {
            tracing::warn!(%err, path = %path.display(), "the team inboxes cannot be read; starting without them");
            Vec::new()
        }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(err) => {
            tracing::warn!(%err, path = %path.display(), "the team inboxes cannot be read; starting without them");
            Vec::new()
        }
    }
}

/// Writes the inboxes (whole, privately).
pub fn save(data_dir: &Path, inboxes: &[SavedInbox]) -> std::io::Result<()> {
    let json = serde_json::to_vec_pretty(inboxes).map_err(std::io::Error::other)?;
    beckon_runtime::private_file::write(&path(data_dir), &json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inboxes_are_kept_privately_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load(dir.path()).is_empty());
        let inbox = SavedInbox {
            id: "t1".into(),
            name: "Acme".into(),
            url: "https://beckon.acme.example".into(),
            secret: Some("s".repeat(64)),
            person: Some(Person { subject: "ada".into(), name: Some("Ada".into()), email: None }),
        };
        save(dir.path(), std::slice::from_ref(&inbox)).unwrap();
        assert_eq!(load(dir.path()), vec![inbox.clone()]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(FILE)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(!format!("{inbox:?}").contains("sss"), "no secret in Debug");
        std::fs::write(dir.path().join(FILE), b"{not json").unwrap();
        assert!(load(dir.path()).is_empty());
    }
}
