//! `beckon remote ssh HOST`: connects the agents on another machine to this Beckon. It makes an
//! ask-only token named after HOST (through the running Beckon, with the person's token), then
//! prints three steps, or with `--install` does the last two over ssh:
//!
//! 1. on this machine, `ssh -R <port>:127.0.0.1:<port> HOST` forwards the gateway to HOST's own
//!    loopback on the same port (the gateway checks the Host names its port);
//! 2. on HOST, a shell script writes the connection file (`remote.json` in Beckon's data folder
//!    there, mode 0600) with the URL and the token;
//! 3. on HOST, `beckon setup <agent>` for each agent.
//!
//! With `--install` the script goes to `ssh HOST sh -s` on stdin, so the token is in no command
//! line on either machine; `beckon` is copied to HOST's `~/.local/bin` first when HOST has none
//! and is the same kind of system as this one.

use std::process::Stdio;

use clap::ValueEnum;
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

use crate::cli::{AgentName, Connection, RemoteArgs, RemoteSshArgs, RemoteVia};
use crate::error::{CliError, CliResult, Exit};

/// Where `--install` puts `beckon` on a machine that has none, relative to the home folder.
const INSTALLED_AT: &str = ".local/bin/beckon";
/// Seconds between keep-alives on the tunnel, so a dead link is noticed and ssh exits.
const ALIVE_EVERY: u32 = 30;

/// Runs `beckon remote …`.
pub async fn run(connection: &Connection, args: RemoteArgs) -> CliResult<Exit> {
    match args.via {
        RemoteVia::Ssh(args) => ssh(connection, args).await,
    }
}

/// What connecting HOST takes.
struct Plan {
    host: String,
    port: u16,
    token_name: String,
    secret: String,
    agents: Vec<String>,
}

async fn ssh(connection: &Connection, args: RemoteSshArgs) -> CliResult<Exit> {
    let client = connection.client()?;
    let port = port_of(&client.endpoint().url)?;
    let token_name = args.token_name.clone().unwrap_or_else(|| name_for(&args.host));
    let created = client.create_token(&token_name, None).await?;
    let secret = created.secret;
    let chosen = if args.agents.is_empty() { AgentName::value_variants().to_vec() } else { args.agents.clone() };
    let agents = chosen.iter().filter_map(|agent| agent.to_possible_value()).map(|value| value.get_name().to_owned());
    let plan = Plan { host: args.host, port, token_name, secret, agents: agents.collect() };
    if args.install {
        install(&plan).await?;
        println!("{} is connected. Keep this running to forward this Beckon to it:\n{}", plan.host, plan.tunnel());
    } else {
        print!("{}", plan.printed());
    }
    Ok(Exit::Success)
}

impl Plan {
    /// Step 1: the tunnel, run on this machine.
    fn tunnel(&self) -> String {
        format!(
            "ssh -N -o ServerAliveInterval={ALIVE_EVERY} -o ServerAliveCountMax=3 -o ExitOnForwardFailure=yes -R {port}:127.0.0.1:{port} {host}",
            port = self.port,
            host = quoted(&self.host)
        )
    }

    /// Step 2: the script that writes the connection file on HOST, where Beckon there looks for
    /// it (its data folder, as `beckon` works it out on Linux and macOS).
    fn connection_script(&self) -> String {
        let file = serde_json::json!({"url": format!("http://127.0.0.1:{}", self.port), "token": self.secret});
        format!(
            r#"dir="${{BECKON_DATA_DIR:-$(if [ "$(uname)" = Darwin ]; then echo "$HOME/Library/Application Support"; else echo "${{XDG_DATA_HOME:-$HOME/.local/share}}"; fi)/{app}}}"
(umask 077 && mkdir -p "$dir" && cat > "$dir/remote.json" <<'BECKON_CONNECTION'
{file}
BECKON_CONNECTION
) && chmod 600 "$dir/remote.json" && echo "wrote $dir/remote.json"
"#,
            app = beckon_client::APP_ID,
        )
    }

    /// Step 3: connecting each agent on HOST.
    fn setups(&self, beckon: &str) -> Vec<String> {
        self.agents.iter().map(|agent| format!("{beckon} setup {agent}")).collect()
    }

    /// The three steps, for the person to run.
    fn printed(&self) -> String {
        let host = &self.host;
        format!(
            "# 1. On this machine: forward this Beckon to {host} (keep it running; its port must be the same on both ends)\n{}\n\n\
             # 2. On {host}, once: save where Beckon is and the ask-only token {:?} (shown only here; revoke it with `beckon token revoke {}`)\n{}\n\
             # 3. On {host}: connect the agents\n{}\n",
            self.tunnel(),
            self.token_name,
            self.token_name,
            self.connection_script(),
            self.setups("beckon").join("\n"),
        )
    }
}

/// The port of the gateway's URL (`http://127.0.0.1:7393`).
fn port_of(url: &str) -> CliResult<u16> {
    url.rsplit_once(':')
        .and_then(|(_, port)| port.trim_end_matches('/').parse().ok())
        .ok_or_else(|| CliError::Reply(format!("the gateway's URL {url:?} names no port")))
}

/// A token name from an ssh destination: the host part, with what a name cannot hold as `-`.
fn name_for(host: &str) -> String {
    let host = host.rsplit_once('@').map_or(host, |(_, host)| host);
    let name: String = host
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '-' })
        .take(beckon_api::token_secret::NAME_MAX_CHARS)
        .collect();
    if name.is_empty() { "remote".to_owned() } else { name }
}

/// `text` as one word for a POSIX shell.
fn quoted(text: &str) -> String {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "-_.@:/+=,".contains(c)) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Does steps 2 and 3 over ssh, copying `beckon` to HOST first if it has none.
async fn install(plan: &Plan) -> CliResult<()> {
    let beckon = match run_on(&plan.host, "command -v beckon", None).await {
        Ok(found) if !found.trim().is_empty() => "beckon".to_owned(),
        _ => copy_beckon(&plan.host).await?,
    };
    let wrote = run_on(&plan.host, "sh -s", Some(&plan.connection_script())).await?;
    eprint!("{wrote}");
    for setup in plan.setups(&beckon) {
        eprint!("{}", run_on(&plan.host, &setup, None).await?);
    }
    Ok(())
}

/// Copies this `beckon` to HOST's `~/.local/bin`, if HOST is the same kind of system.
async fn copy_beckon(host: &str) -> CliResult<String> {
    if run_on(host, &format!("test -x {INSTALLED_AT} && echo yes"), None).await.is_ok_and(|out| out.trim() == "yes") {
        return Ok(INSTALLED_AT.to_owned());
    }
    let theirs = run_on(host, "uname -sm", None).await?;
    let ours = format!("{} {}", std::env::consts::OS, std::env::consts::ARCH);
    if !same_system(&theirs, &ours) {
        return Err(CliError::Input(format!(
            "{host} has no beckon and is another kind of system ({}, this one is {ours}); install Beckon there, then run this again",
            theirs.trim()
        )));
    }
    let program = std::env::current_exe().map_err(|err| CliError::Io(format!("cannot tell where beckon is: {err}")))?;
    run_on(host, "mkdir -p .local/bin", None).await?;
    let copied = Command::new("scp")
        .arg("-q")
        .arg("--")
        .arg(&program)
        .arg(format!("{host}:{INSTALLED_AT}"))
        .status()
        .await
        .map_err(|err| CliError::Io(format!("cannot run scp: {err}")))?;
    if !copied.success() {
        return Err(CliError::Io(format!("scp could not copy beckon to {host}")));
    }
    run_on(host, &format!("chmod 755 {INSTALLED_AT}"), None).await?;
    Ok(INSTALLED_AT.to_owned())
}

/// Whether `uname -sm` (`Linux x86_64`) names the system `ours` (`linux x86_64`) is.
fn same_system(uname: &str, ours: &str) -> bool {
    let normal = |text: &str| text.trim().to_ascii_lowercase().replace("darwin", "macos").replace("arm64", "aarch64");
    normal(uname) == normal(ours)
}

/// Runs `command` on `host` over ssh, with `input` on its stdin; what it printed.
async fn run_on(host: &str, command: &str, input: Option<&str>) -> CliResult<String> {
    let mut child = Command::new("ssh")
        .arg("--")
        .arg(host)
        .arg(command)
        .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|err| CliError::Io(format!("cannot run ssh: {err}")))?;
    if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin.write_all(text.as_bytes()).await.map_err(|err| CliError::Io(format!("ssh {host}: {err}")))?;
    }
    let output = child.wait_with_output().await.map_err(|err| CliError::Io(format!("ssh {host}: {err}")))?;
    if !output.status.success() {
        return Err(CliError::Io(format!("`{command}` failed on {host} ({})", output.status)));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_gives_a_token_name() {
        assert_eq!(name_for("ada@devbox.example.com"), "devbox.example.com");
        assert_eq!(name_for("devbox"), "devbox");
        assert_eq!(name_for("[::1]"), "---1-");
        assert_eq!(name_for("x@"), "remote");
        assert_eq!(name_for(&"h".repeat(60)).len(), 40);
        for host in ["ada@devbox", "[::1]", "x@", "ünï", "a b"] {
            assert!(beckon_api::token_secret::check_name(&name_for(host)).is_ok(), "{host}");
        }
    }

    #[test]
    fn the_tunnel_forwards_the_same_port_and_gives_up_when_it_cannot() {
        let plan = Plan {
            host: "ada@devbox".into(),
            port: 7393,
            token_name: "devbox".into(),
            secret: "bkn_ask_x".into(),
            agents: vec!["claude-code".into()],
        };
        let tunnel = plan.tunnel();
        assert!(tunnel.contains("-R 7393:127.0.0.1:7393 ada@devbox"), "{tunnel}");
        assert!(tunnel.contains("ExitOnForwardFailure=yes") && tunnel.contains("ServerAliveInterval=30"));
        assert_eq!(quoted("it's"), r"'it'\''s'");
        assert_eq!(port_of("http://127.0.0.1:7393").unwrap(), 7393);
        assert!(port_of("http://127.0.0.1").is_err());
        assert!(same_system("Linux x86_64\n", "linux x86_64"));
        assert!(same_system("Darwin arm64", "macos aarch64"));
        assert!(!same_system("Linux aarch64", "linux x86_64"));
    }
}
