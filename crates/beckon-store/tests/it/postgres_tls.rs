//! The store's connections to a real PostgreSQL that speaks TLS with a certificate from a private
//! authority: `verify-full` with the authority as `sslrootcert` is taken, a certificate for
//! another host is refused under `verify-full` (and the error says it is the certificate) but
//! taken under `verify-ca`, an authority not named is refused, `require` takes any certificate,
//! and `require` to a server without TLS is refused.

use beckon_store::Store;
use beckon_store::testing::{TestCa, TestCluster};

/// A cluster speaking TLS with a certificate for `names` from `ca`, and `ca`'s certificate in a file.
fn cluster(ca: &TestCa, names: &[&str]) -> (TestCluster, tempfile::TempDir, String) {
    let issued = ca.issue(names).unwrap();
    let cluster = TestCluster::start_with_tls(&issued.cert_pem, &issued.key_pem).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ca.pem");
    std::fs::write(&root, ca.cert_pem()).unwrap();
    (cluster, dir, root.to_str().unwrap().to_owned())
}

fn url(cluster: &TestCluster, host: &str, settings: &str) -> String {
    format!("postgres://beckon@{host}:{}/postgres?{settings}", cluster.port())
}

fn refusal(url: &str) -> String {
    Store::connect(url).map(drop).expect_err("the connection is refused").to_string()
}

#[test]
fn verify_full_takes_the_servers_own_certificate_and_refuses_one_for_another_host() {
    let ca = TestCa::new("Beckon test CA").unwrap();
    let (right, _dir, root) = cluster(&ca, &["localhost", "127.0.0.1"]);
    let _by_url =
        Store::connect(&url(&right, "localhost", &format!("sslmode=verify-full&sslrootcert={root}"))).unwrap();
    let _by_settings = Store::connect(&format!(
        "host=127.0.0.1 port={} user=beckon dbname=postgres sslmode=verify-full sslrootcert={root}",
        right.port()
    ))
    .unwrap();
    let connections: i64 =
        right.client("postgres").unwrap().query_one("SELECT count(*) FROM pg_stat_ssl WHERE ssl", &[]).unwrap().get(0);
    assert_eq!(connections, 2, "the store's connections are encrypted (and this one is not)");

    let (wrong, _dir, root) = cluster(&ca, &["db.elsewhere.test"]);
    let said = refusal(&url(&wrong, "localhost", &format!("sslmode=verify-full&sslrootcert={root}")));
    assert!(said.contains("certificate") && said.contains("localhost"), "{said}");
    Store::connect(&url(&wrong, "localhost", &format!("sslmode=verify-ca&sslrootcert={root}"))).unwrap();
    Store::connect(&url(&wrong, "localhost", "sslmode=require")).unwrap();
}

#[test]
fn a_certificate_from_an_authority_not_named_is_refused() {
    let theirs = TestCa::new("Someone else's CA").unwrap();
    let ours = TestCa::new("Beckon test CA").unwrap();
    let (server, dir, _) = cluster(&theirs, &["localhost"]);
    let root = dir.path().join("ours.pem");
    std::fs::write(&root, ours.cert_pem()).unwrap();
    let said = refusal(&url(&server, "localhost", &format!("sslmode=verify-full&sslrootcert={}", root.display())));
    assert!(said.contains("certificate"), "{said}");
    let said = refusal(&url(&server, "localhost", &format!("sslmode=verify-ca&sslrootcert={}", root.display())));
    assert!(said.contains("certificate"), "{said}");
}

#[test]
fn require_is_refused_by_a_server_without_tls() {
    let plain = TestCluster::start(&[]).unwrap();
    let said = refusal(&format!("{}?sslmode=require", plain.url("postgres")));
    assert!(said.to_lowercase().contains("tls") || said.to_lowercase().contains("ssl"), "{said}");
    Store::connect(&plain.url("postgres")).unwrap();
    let said = refusal(&format!("{}?sslmode=verify_full", plain.url("postgres")));
    assert!(said.contains("sslmode=verify_full"), "{said}");
}
