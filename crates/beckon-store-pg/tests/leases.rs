//! Leases against a real PostgreSQL: one holder at a time, taken over once it runs out.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::{Arc, Barrier};

use beckon_store_pg::leases;
use beckon_store_pg::testing::TestCluster;
use postgres::{Client, NoTls};

fn database(name: &str) -> (TestCluster, String) {
    let cluster = TestCluster::start(&[]).unwrap();
    let url = cluster.migrated_database(name).unwrap();
    (cluster, url)
}

#[test]
fn one_replica_holds_work_until_it_lets_go_or_its_lease_runs_out() {
    let (_cluster, url) = database("leases");
    let mut a = Client::connect(&url, NoTls).unwrap();
    let mut b = Client::connect(&url, NoTls).unwrap();

    let held = leases::claim(&mut a, "retention", "replica-a", 1_000, 500).unwrap().unwrap();
    assert_eq!(held.expires_at_ms, 1_500);
    assert_eq!(leases::claim(&mut b, "retention", "replica-b", 1_200, 500).unwrap(), None);
    // Other work is free.
    assert!(leases::claim(&mut b, "session:7", "replica-b", 1_200, 500).unwrap().is_some());
    // The holder renews; the other still waits.
    assert_eq!(leases::claim(&mut a, "retention", "replica-a", 1_400, 500).unwrap().unwrap().expires_at_ms, 1_900);
    assert_eq!(leases::claim(&mut b, "retention", "replica-b", 1_600, 500).unwrap(), None);
    assert_eq!(leases::holder(&mut b, "retention", 1_600).unwrap().unwrap().owner, "replica-a");
    // replica-a dies: no more renewals; once the lease runs out, replica-b takes the work.
    assert_eq!(leases::holder(&mut b, "retention", 1_900).unwrap(), None);
    let taken = leases::claim(&mut b, "retention", "replica-b", 1_900, 500).unwrap().unwrap();
    assert_eq!(taken.owner, "replica-b");
    // A replica that comes back finds its work gone and cannot renew it.
    assert_eq!(leases::claim(&mut a, "retention", "replica-a", 2_000, 500).unwrap(), None);
    assert!(!leases::release(&mut a, "retention", "replica-a").unwrap());
    // Letting go frees it at once.
    assert!(leases::release(&mut b, "retention", "replica-b").unwrap());
    assert!(leases::claim(&mut a, "retention", "replica-a", 2_000, 500).unwrap().is_some());
}

#[test]
fn replicas_claiming_at_the_same_moment_get_one_holder() {
    const REPLICAS: usize = 8;
    const ROUNDS: i64 = 30;
    let (_cluster, url) = database("race");
    let barrier = Arc::new(Barrier::new(REPLICAS));
    let replicas: Vec<_> = (0..REPLICAS)
        .map(|replica| {
            let (url, barrier) = (url.clone(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                let mut client = Client::connect(&url, NoTls).unwrap();
                let owner = format!("replica-{replica}");
                // Each round is a moment after the last lease ran out: everyone claims at once.
                (0..ROUNDS)
                    .filter(|round| {
                        barrier.wait();
                        let won =
                            leases::claim(&mut client, "retention", &owner, round * 1_000, 1_000).unwrap().is_some();
                        barrier.wait();
                        won
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut winners_per_round = vec![0; ROUNDS as usize];
    for replica in replicas {
        for round in replica.join().unwrap() {
            winners_per_round[round as usize] += 1;
        }
    }
    assert_eq!(winners_per_round, vec![1; ROUNDS as usize]);
}
