//! The client of a Beckon, for programs that reach one from another process: the `beckon`
//! command and its agents' hooks, `beckon ask`, `beckon mcp`, and the desktop app following a
//! team inbox. Calls are typed by `beckon-api`; finding the Beckon to call is [`discovery`]
//! (`gateway.json`, the connection file), reaching it is [`client`] (over the private socket
//! where there is one, else HTTP), and a team inbox is [`team_inbox`].
//!
//! Nothing here serves: no HTTP server, MCP, sign-in provider or database, so a hook that runs
//! on every tool call links only this, `beckon-api` and `beckon-core`.

pub mod client;
pub mod data_dir;
pub mod discovery;
pub mod local_socket;
mod now;
pub mod private_file;
pub mod private_folder;
pub mod proof;
pub mod team_inbox;
pub mod trust;

pub use client::{ClientError, ClientResult, GatewayClient, Locator};
pub use data_dir::{APP_ID, app_data_dir, default_data_dir};
pub use discovery::Discovery;
pub use now::now_ms;

/// The request header a client names the read shape it was written for with (the gateway reads
/// it; a missing one is version 1).
pub const VERSION_HEADER: &str = "beckon-api-version";
