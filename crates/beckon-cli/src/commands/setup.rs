//! `beckon setup claude-code`: connects Claude Code to Beckon by writing its configuration —
//! the MCP server (`beckon mcp`), the hooks (`beckon hook claude-code`) and the permission for
//! Beckon's tools — or takes that out again with `--remove`, and says what it changed.

use beckon_claude_code::{Setup, State};

use crate::cli::{Scope, SetupArgs, SetupTarget};
use crate::error::{CliError, CliResult, Exit};

/// The `beckon` Claude Code should run: this one, by its full path.
fn this_program() -> CliResult<String> {
    let path = std::env::current_exe().map_err(|err| CliError::Io(format!("cannot tell where beckon is: {err}")))?;
    let path = path.canonicalize().unwrap_or(path);
    path.to_str().map(str::to_owned).ok_or_else(|| CliError::Io(format!("{} is not UTF-8", path.display())))
}

fn scope(scope: Scope) -> beckon_claude_code::Scope {
    match scope {
        Scope::User => beckon_claude_code::Scope::User,
        Scope::Project => beckon_claude_code::Scope::Project,
        Scope::Local => beckon_claude_code::Scope::Local,
    }
}

/// Runs `beckon setup <target>`.
pub fn run(args: SetupArgs) -> CliResult<Exit> {
    let SetupTarget::ClaudeCode(args) = args.target;
    let setup = Setup::from_environment(scope(args.scope), &this_program()?)?;
    if args.check {
        let state = match setup.state()? {
            State::Connected => "connected",
            State::OutOfDate => "out of date (run beckon setup claude-code again)",
            State::NotConnected => "not connected",
        };
        println!("Claude Code ({} scope): {state}", setup.scope.as_str());
        return Ok(Exit::Success);
    }
    let report = setup.apply(args.remove, args.dry_run)?;
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
        println!(
            "Claude Code's prompts now reach Beckon while it runs; restart running Claude Code sessions to pick this up."
        );
    }
    Ok(Exit::Success)
}
