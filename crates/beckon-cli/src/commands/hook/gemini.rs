//! `beckon hook gemini`: a Gemini CLI hook that tells the person, through a Beckon notice, that
//! Gemini waits at a permission prompt and for what, and takes the notice away when the session
//! goes on. Gemini lets no hook approve, so this never decides anything: it prints `{}` (what
//! Gemini reads as "go on as you would") before anything else, so that nothing it says on stderr
//! is taken for an answer, and ends at once when Beckon is not running.
//!
//! Gemini gives its hooks its whole environment, API key included; this reads only
//! `GEMINI_PROJECT_DIR` from it.

use std::io::Write;
use std::time::Duration;

use beckon_agents::gemini::notice;

use super::put::{change_notice, read_event};
use crate::cli::Connection;

/// How long telling Beckon may take: Gemini waits for this hook before it shows its prompt.
const NOTICE_TIMEOUT: Duration = Duration::from_secs(2);

/// Runs `beckon hook gemini`.
pub async fn run(connection: &Connection) -> Result<(), String> {
    // A closed stdout leaves Gemini nothing to read: no answer either way.
    let _ = writeln!(std::io::stdout(), "{{}}");
    let event = read_event()?;
    let project_dir = std::env::var("GEMINI_PROJECT_DIR").ok();
    let Some(change) = notice::notice_change(&event, project_dir.as_deref()) else { return Ok(()) };
    // No Beckon: nobody to tell.
    let Ok(client) = connection.client() else { return Ok(()) };
    match tokio::time::timeout(NOTICE_TIMEOUT, change_notice(&client, &change)).await {
        Ok(done) => done,
        Err(_) => Err(format!("Beckon did not take the notice within {NOTICE_TIMEOUT:?}")),
    }
}
