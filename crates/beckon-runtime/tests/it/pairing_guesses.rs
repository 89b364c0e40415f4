//! Wrong pairing codes on a team server, through the service API on the runtime's clock: after
//! five from one account within ten minutes no code from it is read, not even a right one,
//! until the oldest of them is ten minutes old, while other accounts still pair; after 300 from
//! every account together within an hour no code is read from anyone until the hour has passed.

use std::sync::Arc;
use std::time::Duration;

use beckon_runtime::{Beckon, ChannelPairing, ManualClock, RuntimeConfig, WrongCodeLimit};
use beckon_store::SignedIn;

use crate::support::*;

const START_MS: i64 = 1_800_000_000_000;
const WRONG: &str = "ACDEFGHJ";

fn ada() -> SignedIn {
    SignedIn { subject: "ada".into(), email: None, name: Some("Ada Lovelace".into()), groups: vec!["eng".into()] }
}

async fn code_for_ada(beckon: &Beckon) -> String {
    beckon.pairings().new_code("slack", &ada()).await.unwrap().code
}

fn is_adas(pairing: &ChannelPairing) -> bool {
    matches!(pairing, ChannelPairing::Paired(paired) if paired.person.subject == "ada")
}

#[tokio::test]
async fn an_accounts_codes_are_read_again_once_its_wrong_ones_are_ten_minutes_old() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MS));
    let (beckon, _) = start_on(RuntimeConfig::new(dir.path()), clock.clone()).await;
    // Five wrong codes, a minute apart.
    for _ in 0..5 {
        assert_eq!(beckon.pairings().pair("slack", "U0MAL", WRONG).await.unwrap(), ChannelPairing::NoSuchCode);
        clock.advance(Duration::from_secs(60));
    }
    let code = code_for_ada(&beckon).await;
    let held = beckon.pairings().pair("slack", "U0MAL", &code).await.unwrap();
    assert_eq!(held, ChannelPairing::NotRead(WrongCodeLimit::Account), "a right code is not read either");
    // On another channel, and from another account, codes are read.
    assert_eq!(beckon.pairings().pair("telegram", "U0MAL", WRONG).await.unwrap(), ChannelPairing::NoSuchCode);
    assert_eq!(beckon.pairings().pair("slack", "U0BO", WRONG).await.unwrap(), ChannelPairing::NoSuchCode);
    // Just before the first miss is ten minutes old the account is still held; just after, its
    // code is read, and still good.
    clock.advance(Duration::from_millis(5 * 60_000 - 1));
    let held = beckon.pairings().pair("slack", "U0MAL", &code).await.unwrap();
    assert_eq!(held, ChannelPairing::NotRead(WrongCodeLimit::Account));
    clock.advance(Duration::from_millis(2));
    assert!(is_adas(&beckon.pairings().pair("slack", "U0MAL", &code).await.unwrap()));
    beckon.shutdown().await;
}

#[tokio::test]
async fn a_channel_reads_no_code_from_anyone_for_an_hour_after_three_hundred_wrong_ones() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(START_MS));
    let (beckon, _) = start_on(RuntimeConfig::new(dir.path()), clock.clone()).await;
    // Sixty accounts, five wrong codes each: none of them is held on its own.
    for account in 0..60 {
        for _ in 0..5 {
            let account = format!("U0GUESS{account}");
            assert_eq!(beckon.pairings().pair("slack", &account, WRONG).await.unwrap(), ChannelPairing::NoSuchCode);
        }
        clock.advance(Duration::from_secs(1));
    }
    let code = code_for_ada(&beckon).await;
    let held = beckon.pairings().pair("slack", "U0ADA", &code).await.unwrap();
    assert_eq!(held, ChannelPairing::NotRead(WrongCodeLimit::Channel), "an account that sent nothing wrong");
    assert_eq!(beckon.pairings().pair("telegram", "4242", WRONG).await.unwrap(), ChannelPairing::NoSuchCode);
    // Once the hour since the first of them has passed, codes are read again.
    clock.advance(Duration::from_secs(3600));
    let code = code_for_ada(&beckon).await;
    assert!(is_adas(&beckon.pairings().pair("slack", "U0ADA", &code).await.unwrap()));
    beckon.shutdown().await;
}
