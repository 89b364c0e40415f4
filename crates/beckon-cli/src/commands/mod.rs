//! One module per command; each returns how the process exits.

mod answer;
mod ask;
mod audit;
mod docs;
mod hook;
mod pending;
mod remote;
mod server;
mod setup;
mod status;
mod token;

use std::path::PathBuf;

use beckon_client::{ClientError, GatewayClient, Locator};

use crate::cli::{Cli, Command, Connection};
use crate::error::{CliResult, Exit};

/// How the CLI names itself to the gateway (which rate-limits writes per client).
const CLIENT_NAME: &str = "beckon-cli";

/// Runs the command.
pub async fn run(cli: Cli) -> CliResult<Exit> {
    let connection = cli.connection;
    match cli.command {
        Command::Ask(args) => ask::run(&connection, args).await,
        Command::Pending(args) => pending::run(&connection, args).await,
        Command::Answer(args) => answer::run(&connection, args).await,
        Command::Status(args) => status::run(&connection, args).await,
        Command::Serve(_) | Command::Mcp(_) => server::hand_over(std::env::args_os().skip(1)),
        Command::Hook(args) => hook::run(&connection, args).await,
        Command::Setup(args) => setup::run(&connection, args).await,
        Command::Token(args) => token::run(&connection, args).await,
        Command::Remote(args) => remote::run(&connection, args).await,
        Command::Audit(args) => audit::run(&connection, args, beckon_client::now_ms()).await,
        Command::Docs(args) => docs::run(&args),
    }
}

impl Connection {
    /// The data folder: `--data-dir`, `BECKON_DATA_DIR`, else the app's.
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir.clone().unwrap_or_else(beckon_client::default_data_dir)
    }

    /// Where to find the gateway.
    pub fn locator(&self) -> Locator {
        Locator {
            data_dir: self.data_dir(),
            url: self.url.clone(),
            token: self.token.clone(),
            ca_file: self.ca_file.clone(),
        }
    }

    /// A client of the running Beckon's gateway.
    pub fn client(&self) -> Result<GatewayClient, ClientError> {
        let endpoint = self.locator().locate()?;
        GatewayClient::connect(endpoint, CLIENT_NAME)
    }
}
