//! The desktop app's side of a team inbox: signing in as the person through their browser
//! ([`AppSignIn`], RFC 8252; a loopback listener, so it stays with the server code), then the
//! inbox itself, [`TeamInbox`] from `beckon_client`.

mod connect;

pub use beckon_client::team_inbox::*;
pub use connect::{AppSignIn, Connected, SignedInAs};
