//! Opening Beckon's store on PostgreSQL: connecting, and bringing the schema up to date in one
//! transaction under an advisory lock, so replicas starting together migrate once and a crash
//! mid-way leaves the old version whole. A schema from a newer Beckon is refused untouched.

use postgres::Client;
use tokio_postgres::Config;

use crate::error::{Error, Result};
use crate::sql::{Pg, detail};
use crate::store::Store;

/// The PostgreSQL schema, one migration per version; version N is the first N applied.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/postgres/001_schema.sql"),
    include_str!("../migrations/postgres/002_sign_in.sql"),
    include_str!("../migrations/postgres/003_audiences.sql"),
    include_str!("../migrations/postgres/004_channel_people.sql"),
    include_str!("../migrations/postgres/005_askers_and_revocation.sql"),
    include_str!("../migrations/postgres/006_pairing_misses.sql"),
    include_str!("../migrations/postgres/007_push.sql"),
];

/// The PostgreSQL schema version this build writes.
pub const POSTGRES_SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Held while migrating (any fixed number; "beckon" in ASCII).
const MIGRATION_LOCK: i64 = 0x6265_636b_6f6e;

impl Store {
    /// Connects to the PostgreSQL database at `url` (`postgres://user@host:port/name` or
    /// `host=… dbname=…`) and brings its schema up to date. A bad URL, a database that cannot be
    /// reached and a schema from a newer Beckon are refused with an error naming the database
    /// (never its password); nothing is half-migrated.
    pub fn connect(url: &str) -> Result<Store> {
        let target = crate::pg_tls::target(url)?;
        let database = describe(&target.config);
        let mut pg = Pg::connect(target, database.clone())?;
        migrate(&mut pg, &database)?;
        Ok(Store::from_postgres(pg))
    }

    /// Connects to the PostgreSQL database at `url` for reading only, beside the replicas that
    /// write it (an export that should not hold the store's own connection): the server refuses
    /// every write on the connection, nothing is migrated, and a schema other than this build's
    /// is refused.
    pub fn connect_read_only(url: &str) -> Result<Store> {
        let mut target = crate::pg_tls::target(url)?;
        // Sent with every connection start, a reconnection's too; after any options of the URL's.
        let options =
            format!("{} -c default_transaction_read_only=on", target.config.get_options().unwrap_or_default());
        target.config.options(options.trim_start());
        let database = describe(&target.config);
        let mut pg = Pg::connect(target, database.clone())?;
        let found: i64 = match pg.query("SELECT version FROM beckon_schema", &[])?.first() {
            Some(row) => row.try_get(0)?,
            None => 0,
        };
        if found > POSTGRES_SCHEMA_VERSION {
            return Err(Error::NewerDatabase { database, found, supported: POSTGRES_SCHEMA_VERSION });
        }
        if found < POSTGRES_SCHEMA_VERSION {
            return Err(Error::Connect {
                database,
                detail: format!(
                    "schema version {found} is older than this build's {POSTGRES_SCHEMA_VERSION}; start a replica of this build once to upgrade it"
                ),
            });
        }
        Ok(Store::from_postgres(pg))
    }
}

/// The database as people name it: user, host, port and name, without a password.
pub(crate) fn describe(config: &Config) -> String {
    let host = config
        .get_hosts()
        .first()
        .map(|host| match host {
            tokio_postgres::config::Host::Tcp(name) => name.clone(),
            tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .unwrap_or_else(|| "localhost".into());
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().unwrap_or("");
    let name = config.get_dbname().unwrap_or(user);
    format!("postgres://{user}@{host}:{port}/{name}")
}

/// Brings the schema to [`POSTGRES_SCHEMA_VERSION`] in one transaction; returns the version it
/// found.
pub(crate) fn migrate(pg: &mut Pg, database: &str) -> Result<i64> {
    let failed = |err: Error| match err {
        Error::Postgres(err) => Error::Migration { path: database.into(), detail: detail(&err) },
        other => other,
    };
    pg.batch("BEGIN").map_err(failed)?;
    match migrate_in_transaction(pg, database).and_then(|found| pg.batch("COMMIT").map(|()| found)) {
        Ok(found) => Ok(found),
        Err(err) => {
            // A failed rollback ends with the connection, which is dropped with the error.
            let _ = pg.batch("ROLLBACK");
            Err(failed(err))
        }
    }
}

fn migrate_in_transaction(pg: &mut Pg, database: &str) -> Result<i64> {
    // Transaction-scoped: released by the commit or the rollback, whichever comes.
    pg.execute("SELECT pg_advisory_xact_lock(?1)", &[&MIGRATION_LOCK])?;
    // Created only when missing: `IF NOT EXISTS` on a table that exists has PostgreSQL send a
    // NOTICE that every later start would log.
    let exists = pg.query("SELECT to_regclass('beckon_schema') IS NOT NULL", &[])?;
    if !exists.first().map(|row| row.try_get::<_, bool>(0)).transpose()?.unwrap_or(false) {
        pg.batch("CREATE TABLE beckon_schema (version BIGINT NOT NULL)")?;
    }
    let found: i64 = match pg.query("SELECT version FROM beckon_schema", &[])?.first() {
        Some(row) => row.try_get(0)?,
        None => {
            pg.execute("INSERT INTO beckon_schema (version) VALUES (0)", &[])?;
            0
        }
    };
    if found > POSTGRES_SCHEMA_VERSION {
        return Err(Error::NewerDatabase { database: database.into(), found, supported: POSTGRES_SCHEMA_VERSION });
    }
    for migration in MIGRATIONS.iter().skip(usize::try_from(found).unwrap_or(0)) {
        pg.batch(migration)?;
    }
    pg.execute("UPDATE beckon_schema SET version = ?1", &[&POSTGRES_SCHEMA_VERSION])?;
    Ok(found)
}

/// A connection that listens for committed events on PostgreSQL ([`EVENTS_CHANNEL`]): how a
/// replica learns that another wrote to the log, without polling.
///
/// [`EVENTS_CHANNEL`]: crate::EVENTS_CHANNEL
pub struct EventListener {
    client: Client,
}

impl std::fmt::Debug for EventListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventListener").finish_non_exhaustive()
    }
}

impl EventListener {
    /// Connects to the database at `url` and listens.
    pub fn connect(url: &str) -> Result<EventListener> {
        let target = crate::pg_tls::target(url)?;
        let mut client = postgres::Config::from(target.config.clone())
            .connect(target.tls)
            .map_err(|err| Error::Connect { database: describe(&target.config), detail: detail(&err) })?;
        client.batch_execute(&format!("LISTEN {}", crate::EVENTS_CHANNEL))?;
        Ok(EventListener { client })
    }

    /// Waits up to `timeout` for commits; whether any was heard (all heard so far are taken).
    pub fn wait(&mut self, timeout: std::time::Duration) -> Result<bool> {
        use postgres::fallible_iterator::FallibleIterator;
        let mut notifications = self.client.notifications();
        let heard = notifications.timeout_iter(timeout).next()?.is_some();
        if heard {
            // The rest already here: one read of the log covers them all.
            while notifications.iter().next()?.is_some() {}
        }
        Ok(heard)
    }
}
