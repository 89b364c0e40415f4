//! Opening a PostgreSQL database: migrated once when replicas start together, never over a
//! newer schema, never half-way; a bad URL or an unreachable server is a clear error.

use beckon_store::testing::TestCluster;
use beckon_store::{Error, POSTGRES_SCHEMA_VERSION, Store};

#[test]
fn replicas_starting_together_migrate_once() {
    let cluster = TestCluster::start(&[]).unwrap();
    let url = cluster.create_database("together").unwrap();
    let replicas: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || Store::connect(&url).map(drop))
        })
        .collect();
    for replica in replicas {
        replica.join().unwrap().unwrap();
    }
    let mut client = cluster.client("together").unwrap();
    let versions: Vec<i64> =
        client.query("SELECT version FROM beckon_schema", &[]).unwrap().iter().map(|row| row.get(0)).collect();
    assert_eq!(versions, [POSTGRES_SCHEMA_VERSION]);
    let counters: i64 = client.query_one("SELECT count(*) FROM event_seq", &[]).unwrap().get(0);
    assert_eq!(counters, 1, "the schema was made once");
}

#[test]
fn a_schema_from_a_newer_beckon_is_refused_and_left_alone() {
    let cluster = TestCluster::start(&[]).unwrap();
    let url = cluster.create_database("newer").unwrap();
    drop(Store::connect(&url).unwrap());
    let mut client = cluster.client("newer").unwrap();
    client.execute("UPDATE beckon_schema SET version = $1", &[&(POSTGRES_SCHEMA_VERSION + 1)]).unwrap();
    client.batch_execute("CREATE TABLE from_the_future (x INT)").unwrap();
    let refused = Store::connect(&url).unwrap_err();
    assert!(
        matches!(&refused, Error::NewerDatabase { found, supported, .. }
            if *found == POSTGRES_SCHEMA_VERSION + 1 && *supported == POSTGRES_SCHEMA_VERSION),
        "{refused}"
    );
    assert!(refused.to_string().contains("upgrade Beckon"), "{refused}");
    let version: i64 = client.query_one("SELECT version FROM beckon_schema", &[]).unwrap().get(0);
    assert_eq!(version, POSTGRES_SCHEMA_VERSION + 1);
    client.query_one("SELECT count(*) FROM from_the_future", &[]).unwrap();
}

#[test]
fn a_migration_that_fails_leaves_the_database_as_it_was() {
    let cluster = TestCluster::start(&[]).unwrap();
    let url = cluster.create_database("halfway").unwrap();
    let mut client = cluster.client("halfway").unwrap();
    // Something in the way of the migration: it fails part-way through.
    client.batch_execute("CREATE TABLE events (unrelated INT)").unwrap();
    let failed = Store::connect(&url).unwrap_err();
    assert!(matches!(failed, Error::Migration { .. }), "{failed}");
    assert!(failed.to_string().contains("events"), "says what was in the way: {failed}");
    let tables: Vec<String> = client
        .query("SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY 1", &[])
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(tables, ["events"]);
    // Once the obstacle is gone it migrates in full.
    client.batch_execute("DROP TABLE events").unwrap();
    Store::connect(&url).unwrap();
}

#[test]
fn a_bad_url_or_an_absent_server_is_a_clear_error_without_the_password() {
    let bad = Store::connect("postgres://beckon:hunter2@[::1:5432/beckon").unwrap_err();
    assert!(matches!(bad, Error::Connect { .. }), "{bad}");
    assert!(!bad.to_string().contains("hunter2"), "{bad}");
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let absent = Store::connect(&format!("postgres://beckon:hunter2@127.0.0.1:{port}/beckon")).unwrap_err();
    let text = absent.to_string();
    assert!(matches!(absent, Error::Connect { .. }), "{text}");
    assert!(text.contains(&format!("postgres://beckon@127.0.0.1:{port}/beckon")), "names the database: {text}");
    assert!(text.contains("refused"), "says why: {text}");
    assert!(!text.contains("hunter2"), "{text}");
}

#[test]
fn a_database_that_goes_away_and_comes_back_is_used_again() {
    let cluster = TestCluster::start(&[]).unwrap();
    let url = cluster.create_database("restart").unwrap();
    let mut store = Store::connect(&url).unwrap();
    store.write(|tx| tx.set_setting("before", "1")).unwrap();
    cluster.kill().unwrap();
    assert!(store.write(|tx| tx.set_setting("during", "1")).is_err(), "no server, no write");
    cluster.restart().unwrap();
    // The next write connects again; what was committed before is there.
    store.write(|tx| tx.set_setting("after", "1")).unwrap();
    assert_eq!(store.read().setting("before").unwrap().as_deref(), Some("1"));
    assert_eq!(store.read().setting("during").unwrap(), None);
    assert_eq!(store.read().setting("after").unwrap().as_deref(), Some("1"));
}

#[test]
fn a_database_of_the_first_schema_is_brought_up_to_date_with_its_data() {
    let cluster = TestCluster::start(&[]).unwrap();
    let url = cluster.create_database("older").unwrap();
    let mut client = cluster.client("older").unwrap();
    // As the first release of the team server left it.
    client.batch_execute(include_str!("../../migrations/postgres/001_schema.sql")).unwrap();
    client
        .batch_execute("CREATE TABLE beckon_schema (version BIGINT NOT NULL); INSERT INTO beckon_schema VALUES (1)")
        .unwrap();
    client.execute("INSERT INTO settings (key, value) VALUES ('kept', 'yes')", &[]).unwrap();

    let mut store = Store::connect(&url).unwrap();
    let version: i64 = client.query_one("SELECT version FROM beckon_schema", &[]).unwrap().get(0);
    assert_eq!(version, POSTGRES_SCHEMA_VERSION);
    assert_eq!(store.read().setting("kept").unwrap().as_deref(), Some("yes"));
    // The tables the later versions add work.
    let sign_in = beckon_store::NewSignIn {
        state: "s".into(),
        secret: "{}".into(),
        next: "/".into(),
        at_ms: 1,
        expires_at_ms: 10,
    };
    store.write(|tx| tx.begin_sign_in(&sign_in)).unwrap();
    assert!(store.write(|tx| tx.take_sign_in("s", 2)).unwrap().value.is_some());
}
