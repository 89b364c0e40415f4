//! `beckon setup <agent>`: connects an agent to Beckon by writing its configuration — Beckon's
//! MCP server and the hooks (or plugin) that bring its prompts — or takes that out again with
//! `--remove`, and says what it changed.

use beckon_agents::{Place, State};

use crate::cli::{Scope, SetupArgs};
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

/// Runs `beckon setup <agent>`.
pub fn run(args: SetupArgs) -> CliResult<Exit> {
    let agent = args.agent.agent();
    let connection =
        beckon_agents::connection(agent, scope(args.scope), &Place::from_environment()?, &this_program()?)?;
    if args.check {
        let state = match connection.state()? {
            State::Connected => "connected".to_owned(),
            State::OutOfDate => format!("out of date (run beckon setup {agent} again)"),
            State::NotConnected => "not connected".to_owned(),
        };
        println!("{} ({} scope): {state}", agent.title(), connection.scope().as_str());
        return Ok(Exit::Success);
    }
    let report = connection.apply(args.remove, args.dry_run)?;
    let verb = match (args.remove, args.dry_run) {
        (false, false) => "Added Beckon to",
        (false, true) => "Would add Beckon to",
        (true, false) => "Removed Beckon from",
        (true, true) => "Would remove Beckon from",
    };
    for change in &report.changes {
        if change.changed {
            println!("{verb} {} ({})", change.place, change.what);
        } else {
            println!("Unchanged: {}", change.place);
        }
    }
    if !args.remove && !args.dry_run {
        println!("{}", connection.next_step());
    }
    Ok(Exit::Success)
}
