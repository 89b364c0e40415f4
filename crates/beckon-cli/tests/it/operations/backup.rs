//! Backup and restore as the operations page gives them, its blocks read from the page and run:
//! `pg_dump --format=custom` of the live database, `pg_restore` into a new one, and a replica
//! started on the restored database serves what was asked before the dump, answers it, and takes
//! the admin token of the original.

use serde_json::{Value, json};

use super::{Replica, admin_token, database, documented, psql};
use crate::docs::book;

/// The page whose blocks this runs.
const PAGE: &str = "docs/src/team-server/operations.md";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dump_restored_into_a_new_database_serves_its_questions() {
    let (cluster, url) = database("team").await;
    let first = Replica::start(&["--database", &url]).await;
    let admin = admin_token(&first.server.printed(1));
    let id = first.ask("release-7", json!({})).await;

    // While the replica runs: pg_dump reads one consistent snapshot.
    let dir = tempfile::tempdir().unwrap();
    let dump = book::block(PAGE, r#"pg_dump --format=custom --file=beckon.dump "$BECKON_DATABASE_URL""#);
    documented(&dump.text(), &[("BECKON_DATABASE_URL", &url)], dir.path()).await;
    // Asked after the dump: not in it.
    let later = first.ask("release-8", json!({})).await;
    first.server.stop().await;

    // The page's `createdb` needs the cluster's superuser through sudo: made here directly.
    let restored = tokio::task::block_in_place(|| cluster.create_database("beckon_restored").unwrap());
    let restore =
        book::block(PAGE, "export RESTORED_URL='postgres://beckon:change-me@db.internal:5432/beckon_restored'");
    let restore = restore.with(&[("postgres://beckon:change-me@db.internal:5432/beckon_restored", &restored)]);
    documented(&restore, &[], dir.path()).await;
    assert_eq!(psql(&restored, "SELECT count(*) FROM questions WHERE status = 'pending'").await, "1");

    let second = Replica::start(&["--database", &restored]).await;
    let pending: Value = second
        .request(reqwest::Method::GET, "/v1/questions?status=pending")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ids: Vec<&str> =
        pending["questions"].as_array().unwrap().iter().filter_map(|q| q["request_id"].as_str()).collect();
    assert_eq!(ids, [id.as_str()], "what was asked before the dump, not {later} asked after it: {pending}");
    let question: Value = second
        .request(reqwest::Method::GET, &format!("/v1/questions/{id}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(question["input"]["questions"][0]["question"], "Ship build 42 to production?", "{question}");

    // The admin token is in the dump too (as its hash).
    let tokens = second.with_token(reqwest::Method::GET, "/v1/tokens", &admin).send().await.unwrap();
    assert_eq!(tokens.status(), 200);
    let answered = second.answer(&id, "Yes").await;
    assert_eq!(answered["status"], "answered", "{answered}");
    assert!(second.server.printed(1).contains("admin token already exists"), "{}", second.server.printed(1));
    second.server.stop().await;
}
