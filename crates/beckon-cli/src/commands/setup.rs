//! `beckon setup <agent>`: connects an agent to Beckon by writing its configuration — Beckon's
//! MCP server and the hooks (or plugin) that bring its prompts — or takes that out again with
//! `--remove`, and says what it changed; `--check` says whether it is connected, and proves it
//! by reaching Beckon the way the agent's hook will.
//!
//! Where the agent's hook and `beckon mcp` find Beckon is recorded once, the same way for every
//! agent:
//!
//! - a Beckon elsewhere (`--url` and `--token`, or `BECKON_URL` and `BECKON_TOKEN`): in the
//!   connection file, `remote.json` in the data folder, readable by its owner only — the file
//!   `beckon` already reads when no Beckon runs on this machine. The token never goes into the
//!   agent's files, which others may read and which travel with dotfiles;
//! - a data folder other than the one `beckon` finds from the home folder alone (`--data-dir` or
//!   `BECKON_DATA_DIR`, or an `XDG_DATA_HOME` agents may not pass on): named in the commands the
//!   agent runs (`beckon --data-dir DIR hook …`, `beckon --data-dir DIR mcp`).

use std::path::{Path, PathBuf};

use beckon_agents::{Connection as AgentConnection, Invocation, Place, State};
use beckon_client::discovery::RemoteConnection;
use beckon_client::{ClientError, Discovery};

use crate::cli::{Connection, Scope, SetupArgs};
use crate::error::{CliError, CliResult, Exit};

/// The `beckon` the agent should run: this one, by its full path.
pub fn this_program() -> CliResult<String> {
    let path = std::env::current_exe().map_err(|err| CliError::Io(format!("cannot tell where beckon is: {err}")))?;
    let path = path.canonicalize().unwrap_or(path);
    path.to_str().map(str::to_owned).ok_or_else(|| CliError::Io(format!("{} is not UTF-8", path.display())))
}

fn scope(scope: Scope) -> beckon_agents::Scope {
    match scope {
        Scope::User => beckon_agents::Scope::User,
        Scope::Project => beckon_agents::Scope::Project,
        Scope::Local => beckon_agents::Scope::Local,
    }
}

/// Where the agents are to find a Beckon elsewhere: the URL and token given (and the authorities
/// to trust for it, with --ca-file), and the connection file they go into.
struct Remote {
    given: RemoteConnection,
    file: PathBuf,
    /// Whether `BECKON_CONNECTION_FILE` named the file (the agents must have it set too).
    named: bool,
}

impl Remote {
    /// The URL and token given, if any; one without the other is refused.
    fn given(connection: &Connection, data_dir: &Path) -> CliResult<Option<Remote>> {
        let (url, token) = match (&connection.url, &connection.token) {
            (None, None) => return Ok(None),
            (Some(url), Some(token)) => (url.trim().trim_end_matches('/'), token.trim()),
            (Some(_), None) => {
                return Err(CliError::Input(
                    "a URL without a token: give the token too (BECKON_TOKEN, or --token), so the agents can use it"
                        .into(),
                ));
            }
            (None, Some(_)) => {
                return Err(CliError::Input(
                    "a token without a URL: give the URL of the Beckon it is for too (BECKON_URL, or --url)".into(),
                ));
            }
        };
        if !(url.starts_with("http://") || url.starts_with("https://")) || url.contains(char::is_whitespace) {
            return Err(CliError::Input(format!("{url:?} is not a Beckon URL (http://… or https://…)")));
        }
        if token.is_empty() {
            return Err(CliError::Input("the token is empty".into()));
        }
        // Kept whole: the agents run the hook from anywhere.
        let ca_file = match &connection.ca_file {
            Some(path) => Some(
                std::fs::canonicalize(path)
                    .map_err(|err| CliError::Input(format!("--ca-file {}: cannot read it: {err}", path.display())))?,
            ),
            None => None,
        };
        let (file, named) = RemoteConnection::path(data_dir);
        let given = RemoteConnection { url: url.to_owned(), token: token.to_owned(), ca_file };
        Ok(Some(Remote { given, file, named }))
    }

    /// What the connection file holds now, if it can be read.
    fn stored(&self) -> Option<RemoteConnection> {
        RemoteConnection::read(&self.file).ok()
    }
}

/// Runs `beckon setup <agent>`.
pub async fn run(connection: &Connection, args: SetupArgs) -> CliResult<Exit> {
    let agent = args.agent.agent();
    let place = Place::from_environment()?;
    let data_dir = connection.data_dir();
    let usual = beckon_client::app_data_dir(&place.home, None);
    let beckon = Invocation::on_data_dir(this_program()?, &data_dir, &usual)?;
    let remote = Remote::given(connection, &data_dir)?;
    let files = beckon_agents::connection(agent, scope(args.scope), &place, &beckon)?;
    if args.check {
        return check(connection, files.as_ref(), &data_dir, remote.as_ref()).await;
    }
    let verb = match (args.remove, args.dry_run) {
        (false, false) => "Added Beckon to",
        (false, true) => "Would add Beckon to",
        (true, false) => "Removed Beckon from",
        (true, true) => "Would remove Beckon from",
    };
    if let Some(remote) = &remote
        && !args.remove
    {
        let changed = remote.stored().as_ref() != Some(&remote.given);
        if changed && !args.dry_run {
            remote.given.write(&remote.file).map_err(|err| {
                CliError::Io(format!("cannot write the connection file {}: {err}", remote.file.display()))
            })?;
        }
        let place = remote.file.display();
        if changed {
            println!("{verb} {place} (where the agents find Beckon: {}, with its token)", remote.given.url);
        } else {
            println!("Unchanged: {place}");
        }
    }
    let report = files.apply(args.remove, args.dry_run)?;
    for change in &report.changes {
        if change.changed {
            println!("{verb} {} ({})", change.place, change.what);
        } else {
            println!("Unchanged: {}", change.place);
        }
    }
    if args.remove {
        let (file, _) = RemoteConnection::path(&data_dir);
        if file.exists() {
            println!(
                "The connection file {} stays: other agents and `beckon` itself may use it; delete it once none does.",
                file.display()
            );
        }
        return Ok(Exit::Success);
    }
    if args.dry_run {
        return Ok(Exit::Success);
    }
    println!("{}", files.next_step());
    if let Some(remote) = &remote {
        if remote.named {
            println!(
                "The connection file is where BECKON_CONNECTION_FILE says: the agents find it only with that set for them too."
            );
        }
        if Discovery::read(&data_dir).is_ok() {
            println!(
                "{} is there (a Beckon on this machine): while it is, the agents go to that Beckon rather than {}.",
                Discovery::path(&data_dir).display(),
                remote.given.url
            );
        }
        match reach(connection, &data_dir).await {
            Ok(reached) => println!("Beckon answers at {reached}."),
            Err(why) => println!("Beckon does not answer yet: {why}. Check again with `beckon setup {agent} --check`."),
        }
    }
    Ok(Exit::Success)
}

/// `--check`: whether the files hold Beckon's entries as this `beckon` writes them (and the
/// connection file the URL and token given, if any), and whether Beckon answers by the route the
/// agent's hook takes. Exits 1 unless both.
async fn check(
    connection: &Connection,
    files: &dyn AgentConnection,
    data_dir: &Path,
    remote: Option<&Remote>,
) -> CliResult<Exit> {
    let mut state = files.state()?;
    let mut notes = Vec::new();
    if let Some(remote) = remote {
        let stored = remote.stored();
        if stored.as_ref() != Some(&remote.given) {
            state = State::OutOfDate;
            notes.push(match stored {
                Some(stored) if stored.url != remote.given.url => {
                    format!("{} names {}, not {}", remote.file.display(), stored.url, remote.given.url)
                }
                Some(_) => format!("{} holds another token", remote.file.display()),
                None => format!("{} does not hold the URL and token", remote.file.display()),
            });
        }
    }
    let agent = files.agent();
    let said = match state {
        State::Connected => "connected".to_owned(),
        State::OutOfDate => format!("out of date (run beckon setup {agent} again)"),
        State::NotConnected => "not connected".to_owned(),
    };
    println!("{} ({} scope): {said}", agent.title(), files.scope().as_str());
    for note in notes {
        println!("  {note}");
    }
    let reached = reach(connection, data_dir).await;
    match &reached {
        Ok(reached) => println!("Beckon: reachable at {reached}"),
        Err(why) => println!("Beckon: not reachable: {why}"),
    }
    Ok(if state == State::Connected && reached.is_ok() { Exit::Success } else { Exit::Failed })
}

/// An authenticated `GET /v1/health` by the route the agent's hook and `beckon mcp` take: the
/// data folder they are told, and what they find there (`gateway.json`, else the connection
/// file), with no URL or token of this command's own. Where it answered (and its version), or
/// why nothing did.
async fn reach(connection: &Connection, data_dir: &Path) -> Result<String, String> {
    let route = Connection { data_dir: Some(data_dir.to_path_buf()), url: None, token: None, ..connection.clone() };
    let client = route.client().map_err(|err| reason(&err))?;
    let health = client.health().await.map_err(|err| reason(&err))?;
    let at = match client.socket() {
        Some(socket) => socket.display().to_string(),
        None => client.endpoint().url.clone(),
    };
    Ok(format!("{at} (Beckon {}, the token accepted)", health.version))
}

/// Why Beckon could not be reached, named for someone connecting an agent.
fn reason(err: &ClientError) -> String {
    match err {
        ClientError::NotRunning { at } => {
            format!("nothing answers at {at} (Beckon is not running there, or the tunnel to it is down)")
        }
        ClientError::Impostor { url } => format!(
            "the server at {url} could not prove it knows the token: the token is wrong or revoked, or that is not the Beckon it is for"
        ),
        ClientError::Api { status: 401, body } => format!("the token was refused: {}", body.message),
        ClientError::Api { status, body } => format!("Beckon refused the request ({status}): {}", body.message),
        // The others say what went wrong in words of their own (a file that cannot be read, a
        // transport error with its cause).
        other => other.to_string(),
    }
}
