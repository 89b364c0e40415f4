//! The command line, as clap reads it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Ask a person from a script, answer from a terminal, or run Beckon without a window.
#[derive(Debug, Parser)]
#[command(name = "beckon", version, about, propagate_version = true)]
pub struct Cli {
    /// Where to find Beckon.
    #[command(flatten)]
    pub connection: Connection,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// How a command finds the running Beckon: `gateway.json` in the data folder (and then talks to
/// it over the private socket the file names, else over TCP), unless a URL and token are given.
#[derive(Clone, Args)]
pub struct Connection {
    /// Beckon's data folder [default: the app's].
    #[arg(long, global = true, env = "BECKON_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// The gateway's URL, instead of the one in gateway.json (requests then go over TCP to it).
    #[arg(long, global = true, env = "BECKON_URL", value_name = "URL")]
    pub url: Option<String>,
    /// The gateway's bearer token, instead of the one in gateway.json. A value given as a flag
    /// is visible to other processes on this computer (in `ps` and /proc); prefer setting
    /// BECKON_TOKEN in the environment.
    #[arg(long, global = true, env = "BECKON_TOKEN", value_name = "TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// A PEM file of certificate authorities to trust beside the system's: a private authority
    /// that issued a team server's certificate (for every command that talks to one), or, for
    /// `beckon serve`, its identity provider's and PostgreSQL's (as the database URL's
    /// `sslrootcert` where that names none).
    #[arg(long, global = true, env = "BECKON_CA_FILE", value_name = "FILE")]
    pub ca_file: Option<PathBuf>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token is a secret: never in Debug output.
        f.debug_struct("Connection")
            .field("data_dir", &self.data_dir)
            .field("url", &self.url)
            .field("ca_file", &self.ca_file)
            .finish_non_exhaustive()
    }
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Ask the person a question and wait for the answer.
    ///
    /// Prints the answer and exits 0; exits 2 if they decline, 3 if the question expires, 4 if it
    /// is cancelled, 1 on an error. Ctrl-C withdraws the question and exits 130.
    Ask(AskArgs),
    /// List the questions waiting for an answer.
    Pending(PendingArgs),
    /// Answer a question: one text per question, in order. An option's label selects it
    /// (comma-separated labels for a multi-select question); any other text is an "Other" answer.
    Answer(AnswerArgs),
    /// Say whether Beckon is running, where, and how many questions wait.
    Status(StatusArgs),
    /// Run Beckon without a window: the runtime and its gateway, until SIGINT or SIGTERM.
    ///
    /// Served by `beckon-server`, installed beside `beckon`: `beckon serve --help` lists its
    /// options.
    #[command(disable_help_flag = true)]
    Serve(Forwarded),
    /// Serve MCP over stdin/stdout, passing questions to the running Beckon.
    ///
    /// Served by `beckon-server`, installed beside `beckon`.
    #[command(disable_help_flag = true)]
    Mcp(Forwarded),
    /// Run as another program's hook: put its prompts to the person through Beckon.
    ///
    /// Reads the hook's JSON on stdin and writes the program's answer on stdout. Prints nothing
    /// and exits 0 when Beckon is not running or the person does not answer here, so the
    /// program's own prompt decides.
    Hook(HookArgs),
    /// Connect an agent to Beckon by writing its configuration.
    Setup(SetupArgs),
    /// Make, list and revoke tokens for agents on other machines.
    Token(TokenArgs),
    /// Connect the agents on another machine to this Beckon.
    Remote(RemoteArgs),
    /// Export the audit trail: every resolved question and approval, who asked, what, when,
    /// who answered, via what (window, notification, Slack, a rule, the terminal…) and the
    /// decision, as JSON Lines or CSV, streamed as it is read.
    Audit(AuditArgs),
    /// Open this Beckon's book, the copy installed with it, in the browser.
    Docs(DocsArgs),
}

/// The agents `beckon setup` connects and `beckon hook` serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AgentName {
    /// Claude Code: the MCP server, hooks for its permission prompts, its own AskUserQuestion,
    /// MCP forms and its waits at the prompt, and permission for Beckon's tools.
    ClaudeCode,
    /// OpenAI's Codex CLI: the MCP server and a PermissionRequest hook.
    Codex,
    /// GitHub Copilot CLI: the MCP server and a permissionRequest hook.
    Copilot,
    /// OpenCode: the MCP server and a plugin that brings its permission prompts and questions.
    Opencode,
    /// Gemini CLI: the MCP server and a hook that brings its permission prompts as notices
    /// (Gemini lets no outside program approve).
    Gemini,
}

impl AgentName {
    /// The agent this names.
    pub fn agent(self) -> beckon_agents::Agent {
        match self {
            AgentName::ClaudeCode => beckon_agents::Agent::ClaudeCode,
            AgentName::Codex => beckon_agents::Agent::Codex,
            AgentName::Copilot => beckon_agents::Agent::Copilot,
            AgentName::Opencode => beckon_agents::Agent::OpenCode,
            AgentName::Gemini => beckon_agents::Agent::Gemini,
        }
    }
}

/// `beckon setup <agent>`.
#[derive(Debug, Args)]
pub struct SetupArgs {
    /// Which agent.
    #[arg(value_enum)]
    pub agent: AgentName,
    /// Which of the agent's configurations: user (every project of yours), project (this
    /// folder's, shared through the repository) or local (Claude Code only: this project, for
    /// you only).
    #[arg(long, value_enum, default_value = "user")]
    pub scope: Scope,
    /// Take out what setup added, and nothing else.
    #[arg(long)]
    pub remove: bool,
    /// Say what would change without writing anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Only say whether the agent is connected (connected, out of date, not connected).
    #[arg(long, conflicts_with_all = ["remove", "dry_run"])]
    pub check: bool,
}

/// Agents' configuration scopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    /// Every project of this user.
    User,
    /// This project, for everyone who works on it.
    Project,
    /// This project, for this user only (Claude Code).
    Local,
}

/// `beckon hook <agent>`.
#[derive(Debug, Args)]
pub struct HookArgs {
    /// Whose hook this is.
    #[arg(value_enum)]
    pub agent: AgentName,
}

/// `beckon audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Only what was resolved at or after this: a date (2026-11-01), a time in UTC
    /// (2026-11-01T09:30:00Z), Unix milliseconds, or a span back from now (90m, 12h, 7d).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only what was resolved before this (as --since).
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,
    /// Only this agent's questions.
    #[arg(long)]
    pub agent: Option<String>,
    /// The format.
    #[arg(long, value_enum, default_value_t = AuditFormatArg::Jsonl)]
    pub format: AuditFormatArg,
    /// Write to this file (whole or not at all) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// The formats `beckon audit` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuditFormatArg {
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated values with a header row.
    Csv,
}

/// `beckon token`.
#[derive(Debug, Args)]
pub struct TokenArgs {
    /// What to do with tokens.
    #[command(subcommand)]
    pub action: TokenAction,
}

/// What `beckon token` does.
#[derive(Debug, Subcommand)]
pub enum TokenAction {
    /// Make a token for agents on another machine and print it once (it is stored hashed).
    Create(TokenCreateArgs),
    /// List the tokens: name, what they may do, when made, when last used.
    List(TokenListArgs),
    /// Revoke a token by name: requests carrying it are refused from now on.
    Revoke(TokenRevokeArgs),
}

/// `beckon token create`.
#[derive(Debug, Args)]
pub struct TokenCreateArgs {
    /// A name to know it by (a machine: devbox, ci-runner).
    #[arg(long)]
    pub name: String,
    /// May ask, read and cancel its own questions, never answer, allow, or see others'.
    /// Required: ask-only is the only kind of token made here.
    #[arg(long, required = true)]
    pub ask_only: bool,
    /// On a team server, whom the token asks for: `person:<subject>` (their identity
    /// provider's id) or `group:<name>` (one of its groups). What it asks goes to them alone.
    #[arg(long = "for", value_name = "AUDIENCE")]
    pub owner: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `beckon token list`.
#[derive(Debug, Args)]
pub struct TokenListArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `beckon token revoke`.
#[derive(Debug, Args)]
pub struct TokenRevokeArgs {
    /// The token's name.
    pub name: String,
}

/// `beckon remote`.
#[derive(Debug, Args)]
pub struct RemoteArgs {
    /// How the other machine is reached.
    #[command(subcommand)]
    pub via: RemoteVia,
}

/// The ways `beckon remote` reaches another machine.
#[derive(Debug, Subcommand)]
pub enum RemoteVia {
    /// Print the lines that forward this Beckon's gateway to HOST over `ssh -R` and connect the
    /// agents there with an ask-only token (or, with --install, run them).
    Ssh(RemoteSshArgs),
}

/// `beckon remote ssh`.
#[derive(Debug, Args)]
pub struct RemoteSshArgs {
    /// The machine, as ssh takes it (user@host, or a Host from ~/.ssh/config).
    pub host: String,
    /// Make the token, copy `beckon` there, write its connection file and connect the agents,
    /// instead of printing how.
    #[arg(long)]
    pub install: bool,
    /// The agents to connect there (default: every agent).
    #[arg(long = "agent", value_enum, value_name = "AGENT")]
    pub agents: Vec<AgentName>,
    /// The token's name [default: HOST].
    #[arg(long)]
    pub token_name: Option<String>,
}

/// `beckon ask`.
#[derive(Debug, Args)]
pub struct AskArgs {
    /// The question, in full (or give a whole request with --input).
    #[arg(required_unless_present = "input", conflicts_with = "input")]
    pub question: Option<String>,
    /// An option (2 to 4); without any, the answer is free text.
    #[arg(short = 'o', long = "option", value_name = "LABEL", conflicts_with = "input")]
    pub options: Vec<String>,
    /// What an option means: the first --description describes the first option, the second
    /// the second, and so on ("" for none).
    #[arg(short = 'd', long = "description", value_name = "TEXT", requires = "options", conflicts_with = "input")]
    pub descriptions: Vec<String>,
    /// A short label for the question (at most 12 characters).
    #[arg(long, conflicts_with = "input")]
    pub header: Option<String>,
    /// Let the person pick several options.
    #[arg(long, conflicts_with = "input")]
    pub multi: bool,
    /// A whole AskUserQuestion input as JSON, from FILE or `-` for stdin: 1 to 4 questions with
    /// descriptions, previews and multiSelect, as Claude Code's tool takes it.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Let the person write their own answer (always allowed; accepted for symmetry).
    #[arg(long)]
    pub other: bool,
    /// Give up after this long (90s, 15m, 2h, 7d); exits 3 then.
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
    /// Who asks, as the inbox shows it.
    #[arg(long, default_value = "cli", value_name = "NAME")]
    pub agent: String,
    /// Groups questions asked with the same key into one session.
    #[arg(long, value_name = "KEY")]
    pub session_key: Option<String>,
    /// Print the result as JSON, as Claude Code's AskUserQuestion returns it (questions,
    /// answers keyed by question text, annotations) with the outcome, instead of the answer.
    #[arg(long)]
    pub json: bool,
}

/// `beckon pending`.
#[derive(Debug, Args)]
pub struct PendingArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `beckon answer`.
#[derive(Debug, Args)]
pub struct AnswerArgs {
    /// The question's request id (from `beckon pending`).
    pub request_id: String,
    /// One answer per question, in order.
    #[arg(required = true, value_name = "LABEL|TEXT")]
    pub answers: Vec<String>,
    /// Print the resolved question as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `beckon status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Print only the secret callbacks are signed with, which receivers check
    /// `Beckon-Signature` with. It is read from the data folder, so Beckon need not be running.
    /// Anyone who has it can forge callbacks: keep it out of logs and shared screens.
    #[arg(long)]
    pub secret: bool,
}

/// The arguments of a command `beckon-server` runs (`serve`, `mcp`): passed on as they were
/// given, for it to read.
#[derive(Debug, Args)]
pub struct Forwarded {
    /// Its arguments.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0.., value_name = "ARGS")]
    pub args: Vec<std::ffi::OsString>,
}

/// `beckon docs`.
#[derive(Debug, Args)]
pub struct DocsArgs {
    /// Print where the book's first page is instead of opening it.
    #[arg(long)]
    pub print: bool,
}
