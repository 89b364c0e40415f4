//! Leases: work that one replica does at a time, named by a string (`deadlines`, `outbox`,
//! `channel:slack`, `session:<id>`). A replica claims the work for a while and renews the claim
//! while it works; if it dies, the claim runs out and another replica's claim succeeds. Time is
//! passed in (the replicas' clocks are assumed close; a lease is long against their skew).
//!
//! On SQLite one process owns the file, so every claim succeeds and nothing is written.

use crate::codec::to_json;
use crate::error::Result;
use crate::rows::Lease;
use crate::sql::{Conn, args};
use crate::store::Tx;

impl Tx<'_> {
    /// Claims `work` for `owner` until `now_ms + ttl_ms`, or renews `owner`'s claim. Succeeds
    /// when nobody holds it, `owner` already does, or the holder's lease ran out by `now_ms`;
    /// returns the lease then, `None` when another replica holds it.
    pub fn claim_lease(&mut self, work: &str, owner: &str, now_ms: i64, ttl_ms: i64) -> Result<Option<Lease>> {
        let claimed = self.claim_leases(&[work], owner, now_ms, ttl_ms)?;
        let expires_at_ms = now_ms.saturating_add(ttl_ms);
        Ok((!claimed.is_empty()).then(|| Lease { work: work.to_owned(), owner: owner.to_owned(), expires_at_ms }))
    }

    /// Claims each of `works` for `owner` as [`Tx::claim_lease`] does, in one statement: the
    /// works claimed (a name given twice counts once). Rows are locked in the order of their
    /// names, so two replicas claiming overlapping works at once wait for each other rather
    /// than deadlock.
    pub fn claim_leases(&mut self, works: &[&str], owner: &str, now_ms: i64, ttl_ms: i64) -> Result<Vec<String>> {
        let works = distinct(works);
        if !self.tx.is_postgres() || works.is_empty() {
            return Ok(works);
        }
        // One statement: the row lock the upsert takes decides between claimers racing for it.
        self.tx.query(
            "INSERT INTO leases (work, owner, expires_at)
                 SELECT work, ?2, ?3 FROM jsonb_array_elements_text(CAST(CAST(?1 AS TEXT) AS JSONB)) AS work
                 ORDER BY work
             ON CONFLICT (work) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
                 WHERE leases.owner = EXCLUDED.owner OR leases.expires_at <= ?4
             RETURNING work",
            &args![names(&works)?, owner, now_ms.saturating_add(ttl_ms), now_ms],
            |row| row.get(0),
        )
    }

    /// Gives up `owner`'s lease on `work` so another replica may claim it at once; whether it
    /// held one.
    pub fn release_lease(&mut self, work: &str, owner: &str) -> Result<bool> {
        Ok(!self.release_leases_on(&[work], owner)?.is_empty())
    }

    /// Gives up `owner`'s leases on each of `works`, in one statement: the works it held (on
    /// SQLite, all of them).
    pub fn release_leases_on(&mut self, works: &[&str], owner: &str) -> Result<Vec<String>> {
        let works = distinct(works);
        if !self.tx.is_postgres() || works.is_empty() {
            return Ok(works);
        }
        self.tx.query(
            "DELETE FROM leases
             WHERE owner = ?2 AND work IN (SELECT jsonb_array_elements_text(CAST(CAST(?1 AS TEXT) AS JSONB)))
             RETURNING work",
            &args![names(&works)?, owner],
            |row| row.get(0),
        )
    }

    /// Renews every lease `owner` still holds at `now_ms` until `now_ms + ttl_ms` (a replica's
    /// heartbeat); how many.
    pub fn renew_leases(&mut self, owner: &str, now_ms: i64, ttl_ms: i64) -> Result<usize> {
        if !self.tx.is_postgres() {
            return Ok(0);
        }
        self.tx.execute(
            "UPDATE leases SET expires_at = ?1 WHERE owner = ?2 AND expires_at > ?3",
            &args![now_ms.saturating_add(ttl_ms), owner, now_ms],
        )
    }

    /// Gives up every lease `owner` holds (a replica starting again holds nothing yet); how many.
    pub fn release_leases(&mut self, owner: &str) -> Result<usize> {
        if !self.tx.is_postgres() {
            return Ok(0);
        }
        self.tx.execute("DELETE FROM leases WHERE owner = ?1", &args![owner])
    }
}

/// `works` sorted, each once.
fn distinct(works: &[&str]) -> Vec<String> {
    let set: std::collections::BTreeSet<&str> = works.iter().copied().collect();
    set.into_iter().map(str::to_owned).collect()
}

/// `works` as one JSON array, for a statement to unpack.
fn names(works: &[String]) -> Result<String> {
    to_json("leases", works, usize::MAX)
}

/// The leases held at `now_ms` on work named `prefix…` (on SQLite, none).
pub(crate) fn held(conn: Conn<'_>, prefix: &str, now_ms: i64) -> Result<Vec<Lease>> {
    if !conn.is_postgres() {
        return Ok(Vec::new());
    }
    conn.query(
        "SELECT work, owner, expires_at FROM leases WHERE starts_with(work, ?1) AND expires_at > ?2",
        &args![prefix, now_ms],
        |row| Ok(Lease { work: row.get(0)?, owner: row.get(1)?, expires_at_ms: row.get(2)? }),
    )
}

/// Who holds `work` at `now_ms`, if anyone (on SQLite, no one ever holds one).
pub(crate) fn holder(conn: Conn<'_>, work: &str, now_ms: i64) -> Result<Option<Lease>> {
    if !conn.is_postgres() {
        return Ok(None);
    }
    conn.query_opt(
        "SELECT owner, expires_at FROM leases WHERE work = ?1 AND expires_at > ?2",
        &args![work, now_ms],
        |row| Ok(Lease { work: work.to_owned(), owner: row.get(0)?, expires_at_ms: row.get(1)? }),
    )
}
