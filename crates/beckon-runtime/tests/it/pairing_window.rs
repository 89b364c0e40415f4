//! A person's pairings and sessions end with them, on the runtime's clock: a Slack or Telegram
//! pairing answers for its person only while they signed in within the server's pairing window
//! (and signing in again brings it back, with the groups of that sign-in); ending a person's
//! sessions ends every one of them; a session lasts the server's session lifetime.

use std::sync::Arc;
use std::time::Duration;

use beckon_runtime::{ChannelPairing, ManualClock, RuntimeConfig};
use beckon_store::{SessionKind, SignedIn};

use crate::support::*;

const START_MS: i64 = 1_800_000_000_000;
const DAY: Duration = Duration::from_secs(86_400);

fn ada(groups: &[&str]) -> SignedIn {
    SignedIn {
        subject: "ada".into(),
        email: None,
        name: Some("Ada Lovelace".into()),
        groups: groups.iter().map(|g| (*g).to_owned()).collect(),
    }
}

#[tokio::test]
async fn a_pairing_answers_only_while_its_person_signs_in_and_sessions_end_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MS));
    let mut config = RuntimeConfig::new(dir.path());
    config.pairing_window = 30 * DAY;
    config.person_session_lifetime = Duration::from_secs(3600);
    let (beckon, _) = start_on(config, clock.clone()).await;

    let code = beckon.pairings().new_code("slack", &ada(&["eng"])).await.unwrap().code;
    assert!(matches!(beckon.pairings().pair("slack", "U0ADA", &code).await.unwrap(), ChannelPairing::Paired(_)));
    clock.advance(30 * DAY - Duration::from_millis(1));
    assert!(beckon.pairings().person("slack", "U0ADA").await.unwrap().is_some(), "within the window");
    clock.advance(Duration::from_millis(2));
    assert_eq!(beckon.pairings().person("slack", "U0ADA").await.unwrap(), None, "past it: no one");
    assert!(beckon.pairings().people("slack").await.unwrap().is_empty(), "nothing goes to her messages");
    let listed = beckon.pairings().all().await.unwrap();
    assert_eq!((listed.len(), listed[0].1), (1, false), "an admin still sees it, not answering");

    // She signs in again, in another group: the pairing answers again, as she is now.
    let opened = beckon.people().open_session(ada(&["ops"]), SessionKind::Browser).await.unwrap();
    assert_eq!(opened.expires_at_ms, beckon.now_ms() + 3_600_000, "the server's session lifetime");
    let paired = beckon.pairings().person("slack", "U0ADA").await.unwrap().unwrap();
    assert_eq!(paired.person.groups, ["ops"]);
    clock.advance(Duration::from_secs(1));
    let app = SessionKind::App { label: "Beckon on ada-laptop (port 49152)".into() };
    let connected = beckon.people().open_session(ada(&["ops"]), app.clone()).await.unwrap();
    let kinds: Vec<SessionKind> = beckon.people().open_sessions().await.unwrap().into_iter().map(|s| s.kind).collect();
    assert_eq!(kinds, [SessionKind::Browser, app]);

    // Ended everywhere: no session of hers answers any more; unpaired, no press is hers.
    assert_eq!(beckon.people().end_sessions("ada").await.unwrap(), 2);
    assert!(beckon.people().session(&opened.cookie).await.unwrap().is_none());
    assert!(beckon.people().session(&connected.cookie).await.unwrap().is_none());
    assert_eq!(beckon.pairings().unpair_person("ada").await.unwrap(), 1);
    assert_eq!(beckon.pairings().person("slack", "U0ADA").await.unwrap(), None);
    beckon.shutdown().await;
}
