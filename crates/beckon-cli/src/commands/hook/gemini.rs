//! `beckon hook gemini`: a Gemini CLI hook that tells the person, through a Beckon notice, that
//! Gemini waits at a permission prompt and for what, and takes the notice away when the session
//! goes on. Gemini lets no hook approve, so this never decides anything. It prints nothing, as
//! every agent's hook does, and ends at once when Beckon is not running; Gemini 0.61 reads no
//! output as "go on as you would". Only when it has something to say on stderr does it print
//! `{}` (the same, as JSON) first: with nothing on stdout Gemini reads stderr as the hook's answer
//! and would show that text as a message of the hook's.
//!
//! Gemini gives its hooks its whole environment, API key included; this reads only
//! `GEMINI_PROJECT_DIR` from it.

use std::io::Write;
use std::time::Duration;

use beckon_agents::gemini::notice;
use beckon_agents::notice::NoticeChange;
use beckon_client::ClientError;

use super::put::read_event;
use crate::cli::Connection;
use crate::error::{CliError, CliResult};

/// How long telling Beckon may take: Gemini waits for this hook before it shows its prompt.
const NOTICE_TIMEOUT: Duration = Duration::from_secs(2);

/// Runs `beckon hook gemini`.
pub async fn run(connection: &Connection) -> CliResult<()> {
    let told = tell(connection).await;
    if told.is_err() {
        // What `beckon hook` then says on stderr must not be read as an answer. A closed stdout
        // leaves Gemini nothing to read: no answer either way.
        let _ = writeln!(std::io::stdout(), "{{}}");
    }
    told
}

/// Tells Beckon of the event, if it is one Beckon shows and Beckon is running.
async fn tell(connection: &Connection) -> CliResult<()> {
    let event = read_event()?;
    let project_dir = std::env::var("GEMINI_PROJECT_DIR").ok();
    let Some(change) = notice::notice_change(&event, project_dir.as_deref()) else { return Ok(()) };
    // No Beckon: nobody to tell.
    let Ok(client) = connection.client() else { return Ok(()) };
    let changed = async {
        match &change {
            NoticeChange::Post { key, body } => client.post_notice(key, body).await.map(|_| ()),
            NoticeChange::Clear { key } => client.clear_notice(key).await.map(|_| ()),
        }
    };
    match tokio::time::timeout(NOTICE_TIMEOUT, changed).await {
        Ok(Ok(_)) => Ok(()),
        // Nothing answers where Beckon was (it stopped, or the tunnel to it is down): nobody to
        // tell, as when it is not running at all.
        Ok(Err(ClientError::NotRunning { .. })) => Ok(()),
        Ok(Err(err)) => Err(CliError::Notice(err)),
        Err(_) => Err(CliError::Io(format!("Beckon did not take the notice within {NOTICE_TIMEOUT:?}"))),
    }
}
