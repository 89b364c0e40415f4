//! A rolling upgrade, from the older replicas' side: once a newer Beckon has migrated the
//! database (here: its schema version moved on by hand, as that migration would leave it), a
//! replica of this build already running says it is not ready — `/readyz` 503, `beckon_ready` 0 —
//! while it still answers what reaches it; and one of this build starting now refuses the
//! database, untouched.

use std::process::Command;

use serde_json::json;

use super::metrics::scrape;
use super::{PATIENCE, Replica, database, eventually, psql};
use crate::support::metrics::sample;
use crate::support::serve_start::free_port;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_facing_a_newer_schema_is_not_ready_and_one_starting_refuses_it() {
    let (_cluster, url) = database("team").await;
    let metrics = format!("127.0.0.1:{}", free_port());
    let older = Replica::start(&["--database", &url, "--metrics-listen", &metrics]).await;
    assert_eq!(older.probe("/readyz").await, 200);
    let ours: i64 = psql(&url, "SELECT version FROM beckon_schema").await.parse().unwrap();
    let before = scrape(&metrics).await;
    assert_eq!(sample(&before, "beckon_ready"), Some(1.0), "{before}");
    assert_eq!(sample(&before, "beckon_questions_pending"), Some(0.0), "the database's figures, on PostgreSQL");

    psql(&url, "UPDATE beckon_schema SET version = version + 1").await;
    assert_eq!(older.probe("/readyz").await, 503, "a load balancer stops sending it requests");
    assert_eq!(older.probe("/livez").await, 200, "it is not restarted for it");
    let after = eventually("beckon_ready at 0", PATIENCE, || async {
        let text = scrape(&metrics).await;
        (sample(&text, "beckon_ready") == Some(0.0)).then_some(text)
    })
    .await;
    assert!(sample(&after, "beckon_questions_pending").is_some(), "the database still answers: {after}");
    // Requests that still reach it (connections already open, its own machine's socket) are
    // served as this build serves them.
    older.ask("after-the-upgrade", json!({})).await;

    // One of this build starting now refuses the database and changes nothing.
    let dir = tempfile::tempdir().unwrap();
    let output = tokio::task::block_in_place(|| {
        Command::new(env!("CARGO_BIN_EXE_beckon"))
            .arg("--data-dir")
            .arg(dir.path())
            .args(["serve", "--port", "0", "--database", &url])
            .env_remove("BECKON_DATABASE_URL")
            .env_remove("RUST_LOG")
            .output()
            .unwrap()
    });
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{said}");
    let newer = ours + 1;
    assert!(
        said.contains(&format!("migrated by a newer Beckon (schema version {newer}; this build knows up to {ours})"))
            && said.contains("upgrade Beckon on every replica"),
        "{said}"
    );
    assert!(!String::from_utf8_lossy(&output.stdout).contains("Admin token"), "no admin token is made");
    assert_eq!(psql(&url, "SELECT version FROM beckon_schema").await, newer.to_string(), "left untouched");
    older.server.stop().await;
}
