//! Leases: work that one replica does at a time, named by a string (`retention`,
//! `session:<id>`). A replica claims the work for a while and renews the claim while it works;
//! if it dies, the claim runs out and another replica's claim succeeds. Time is passed in (the
//! replicas' clocks are assumed close; a lease is long against their skew).

use postgres::GenericClient;

use crate::error::Result;

/// A lease held: on what, by whom, until when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The work.
    pub work: String,
    /// The replica holding it.
    pub owner: String,
    /// When it runs out (Unix ms).
    pub expires_at_ms: i64,
}

/// Claims `work` for `owner` until `now_ms + ttl_ms`, or renews `owner`'s claim. Succeeds when
/// nobody holds it, `owner` already does, or the holder's lease ran out by `now_ms`; returns
/// the lease then, `None` when another replica holds it.
pub fn claim(
    client: &mut impl GenericClient,
    work: &str,
    owner: &str,
    now_ms: i64,
    ttl_ms: i64,
) -> Result<Option<Lease>> {
    let expires_at_ms = now_ms.saturating_add(ttl_ms);
    // One statement: the row lock the upsert takes decides between claimers racing for it.
    let row = client.query_opt(
        "INSERT INTO leases (work, owner, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (work) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
             WHERE leases.owner = EXCLUDED.owner OR leases.expires_at <= $4
         RETURNING expires_at",
        &[&work, &owner, &expires_at_ms, &now_ms],
    )?;
    Ok(row.map(|_| Lease { work: work.to_owned(), owner: owner.to_owned(), expires_at_ms }))
}

/// Gives up `owner`'s lease on `work` so another replica may claim it at once; whether it held
/// one.
pub fn release(client: &mut impl GenericClient, work: &str, owner: &str) -> Result<bool> {
    Ok(client.execute("DELETE FROM leases WHERE work = $1 AND owner = $2", &[&work, &owner])? == 1)
}

/// Who holds `work` at `now_ms`, if anyone.
pub fn holder(client: &mut impl GenericClient, work: &str, now_ms: i64) -> Result<Option<Lease>> {
    let row = client
        .query_opt("SELECT owner, expires_at FROM leases WHERE work = $1 AND expires_at > $2", &[&work, &now_ms])?;
    Ok(row.map(|row| Lease { work: work.to_owned(), owner: row.get(0), expires_at_ms: row.get(1) }))
}
