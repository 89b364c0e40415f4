//! A data folder holding many in-app sessions, each stopped on its question and waiting for
//! the person: built once per size through the real runtime, then reused.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::Failure;
use crate::rig::{AGENT, Rig};

/// How many sessions start at once while building.
const BATCH: usize = 500;

/// The data folder with `sessions` waiting sessions under `cache`, built if missing.
pub async fn data_dir(cache: &Path, sessions: usize) -> Result<PathBuf, Failure> {
    let dir = cache.join(format!("waiting-v{}-{sessions}", beckon_store::SCHEMA_VERSION));
    if dir.join("ready").exists() {
        return Ok(dir);
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    eprintln!("building {sessions} waiting sessions (kept for later runs)…");
    let rig = Arc::new(Rig::start(&dir, None).await?);
    let mut done = 0;
    let mut progress = crate::progress::Progress::new("sessions waiting", sessions);
    while done < sessions {
        let batch = BATCH.min(sessions - done);
        let tasks: Vec<_> = (done..done + batch)
            .map(|n| {
                let rig = rig.clone();
                tokio::spawn(async move {
                    let session = rig.beckon.start_session(AGENT, &format!("Release build {n}")).await?;
                    rig.pending(session).await.map(|_| ())
                })
            })
            .collect();
        for task in tasks {
            task.await?.map_err(|err| err.to_string())?;
        }
        done += batch;
        progress.update(done);
    }
    progress.finish();
    if let Ok(rig) = Arc::try_unwrap(rig) {
        rig.stop().await;
    }
    std::fs::write(dir.join("ready"), "")?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_session_waits_on_one_question() {
        let cache = tempfile::tempdir().unwrap();
        let dir = data_dir(cache.path(), 30).await.unwrap();
        let store = beckon_store::Store::open(dir.join("beckon.db")).unwrap();
        assert_eq!(store.read().pending_questions().unwrap().len(), 30);
        let waiting =
            store.read().sessions_with_status(beckon_core::conversation::SessionStatus::WaitingForInput).unwrap();
        assert_eq!(waiting.len(), 30);
    }
}
