//! Migrations against a real PostgreSQL: once when replicas start together, never over a newer
//! schema.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use beckon_store_pg::testing::TestCluster;
use beckon_store_pg::{Error, SCHEMA_VERSION, migrate};

#[test]
fn replicas_starting_together_migrate_once() {
    let cluster = TestCluster::start(&[]).unwrap();
    let url = cluster.create_database("together").unwrap();
    let replicas: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || {
                let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
                migrate(&mut client).unwrap()
            })
        })
        .collect();
    let mut found: Vec<i64> = replicas.into_iter().map(|replica| replica.join().unwrap()).collect();
    found.sort();
    // One found an empty database and migrated it; the others found it done.
    assert_eq!(found, [0, SCHEMA_VERSION, SCHEMA_VERSION, SCHEMA_VERSION]);
    let mut client = cluster.client("together").unwrap();
    let versions: Vec<i64> =
        client.query("SELECT version FROM beckon_schema", &[]).unwrap().iter().map(|row| row.get(0)).collect();
    assert_eq!(versions, [SCHEMA_VERSION]);
    let counters: i64 = client.query_one("SELECT count(*) FROM event_seq", &[]).unwrap().get(0);
    assert_eq!(counters, 1);
}

#[test]
fn a_schema_from_a_newer_beckon_is_refused_and_left_alone() {
    let cluster = TestCluster::start(&[]).unwrap();
    cluster.create_database("newer").unwrap();
    let mut client = cluster.client("newer").unwrap();
    migrate(&mut client).unwrap();
    client.execute("UPDATE beckon_schema SET version = $1", &[&(SCHEMA_VERSION + 1)]).unwrap();
    client.batch_execute("CREATE TABLE from_the_future (x INT)").unwrap();
    let refused = migrate(&mut client).unwrap_err();
    assert!(
        matches!(refused, Error::NewerSchema { found, supported } if found == SCHEMA_VERSION + 1 && supported == SCHEMA_VERSION),
        "{refused}"
    );
    assert!(refused.to_string().contains("upgrade Beckon"), "{refused}");
    let version: i64 = client.query_one("SELECT version FROM beckon_schema", &[]).unwrap().get(0);
    assert_eq!(version, SCHEMA_VERSION + 1);
    client.query_one("SELECT count(*) FROM from_the_future", &[]).unwrap();
}

#[test]
fn a_migration_that_fails_leaves_the_database_as_it_was() {
    let cluster = TestCluster::start(&[]).unwrap();
    cluster.create_database("halfway").unwrap();
    let mut client = cluster.client("halfway").unwrap();
    // Something in the way of the first migration: it fails part-way through.
    client.batch_execute("CREATE TABLE events (unrelated INT)").unwrap();
    assert!(matches!(migrate(&mut client), Err(Error::Database(_))));
    let tables: Vec<String> = client
        .query("SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY 1", &[])
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(tables, ["events"]);
    // Once the obstacle is gone it migrates in full.
    client.batch_execute("DROP TABLE events").unwrap();
    assert_eq!(migrate(&mut client).unwrap(), 0);
}
