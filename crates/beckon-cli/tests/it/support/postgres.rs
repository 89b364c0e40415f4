//! A PostgreSQL of the test's own: `beckon_store::testing::TestCluster`, stopped when dropped.

use beckon_store::testing::TestCluster;

/// A PostgreSQL of the test's own with an empty database `name`, and the database's URL. Its
/// client is synchronous, so it starts off the test's async threads.
pub async fn database(name: &str) -> (TestCluster, String) {
    let name = name.to_owned();
    tokio::task::spawn_blocking(move || {
        let cluster = TestCluster::start(&[]).expect("PostgreSQL starts");
        let url = cluster.create_database(&name).expect("the database can be made");
        (cluster, url)
    })
    .await
    .expect("PostgreSQL was started")
}
