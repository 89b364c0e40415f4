//! The store's PostgreSQL connection, used from the store's one thread: `tokio-postgres` driven
//! by a runtime of its own (as the synchronous `postgres` client does), with its prepared
//! statements, and transaction control that can wait to go out with the next statement.
//!
//! Every statement is a round trip to the server. Transaction control that needs no answer
//! before the next statement (`BEGIN`, a group's savepoints, the `NOTIFY` before a `COMMIT`)
//! is deferred ([`Pg::defer`]): sent just ahead of the next statement, pipelined with it, so
//! both go out together and the server runs them in order.

use std::collections::HashMap;
use std::future::Future;

use tokio::runtime::Runtime;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Config, Row, Statement};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::error::{Error, Result};
use crate::sql::detail;

/// PostgreSQL's client with its prepared statements, by the SQL they were made from.
pub(crate) struct Pg {
    client: Client,
    /// Drives the connection while a statement runs (current-thread: the store's own).
    runtime: Runtime,
    statements: HashMap<String, Statement>,
    /// Transaction control to send ahead of the next statement, `;`-separated.
    deferred: String,
    /// How to connect again when the connection is lost.
    config: Config,
    tls: MakeRustlsConnect,
    /// The database as people name it (no password).
    database: String,
}

impl std::fmt::Debug for Pg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pg").field("statements", &self.statements.len()).finish_non_exhaustive()
    }
}

/// Opens a connection on `runtime`, which drives it from then on.
fn open(runtime: &Runtime, config: &Config, tls: &MakeRustlsConnect, database: &str) -> Result<Client> {
    let refused = |err: tokio_postgres::Error| Error::Connect { database: database.to_owned(), detail: detail(&err) };
    let (client, connection) = runtime.block_on(config.connect(tls.clone())).map_err(refused)?;
    // Ends when the client is dropped or the server goes away (`is_closed` then says so).
    runtime.spawn(connection);
    Ok(client)
}

impl Pg {
    /// Connects to the database `target` names (`database` is how errors name it).
    pub(crate) fn connect(target: crate::pg_tls::Target, database: String) -> Result<Pg> {
        let crate::pg_tls::Target { config, tls } = target;
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|err| {
            Error::Connect { database: database.clone(), detail: format!("cannot start the client: {err}") }
        })?;
        let client = open(&runtime, &config, &tls, &database)?;
        Ok(Pg { client, runtime, statements: HashMap::new(), deferred: String::new(), config, tls, database })
    }

    /// Connects again if the connection was lost (the server restarted, the network dropped):
    /// called only where no transaction is open, so nothing half-done carries over.
    pub(crate) fn reconnect_if_lost(&mut self) -> Result<()> {
        if !self.client.is_closed() {
            return Ok(());
        }
        self.client = open(&self.runtime, &self.config, &self.tls, &self.database)?;
        self.statements.clear();
        self.deferred.clear();
        Ok(())
    }

    /// Sends `sql` (transaction control, no parameters or results) ahead of the next statement
    /// rather than now. If it fails, that next statement fails with [`Error::GroupFailed`].
    pub(crate) fn defer(&mut self, sql: &str) {
        if !self.deferred.is_empty() {
            self.deferred.push_str("; ");
        }
        self.deferred.push_str(sql);
    }

    fn prepare(&mut self, sql: &str) -> Result<Statement> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.runtime.block_on(self.client.prepare(&crate::sql::numbered(sql)))?;
        self.statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    /// Runs a statement; how many rows it changed.
    pub(crate) fn execute(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64> {
        let statement = self.prepare(sql)?;
        let deferred = std::mem::take(&mut self.deferred);
        pipelined(&self.runtime, &self.client, deferred, self.client.execute(&statement, params))
    }

    /// Every row a statement returns.
    pub(crate) fn query(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>> {
        let statement = self.prepare(sql)?;
        let deferred = std::mem::take(&mut self.deferred);
        pipelined(&self.runtime, &self.client, deferred, self.client.query(&statement, params))
    }

    /// Runs statements without parameters or results (transaction control), after any
    /// deferred: one round trip for all.
    pub(crate) fn batch(&mut self, sql: &str) -> Result<()> {
        if self.deferred.is_empty() {
            return Ok(self.runtime.block_on(self.client.batch_execute(sql))?);
        }
        let all = format!("{}; {sql}", std::mem::take(&mut self.deferred));
        Ok(self.runtime.block_on(self.client.batch_execute(&all))?)
    }
}

/// Runs `request` with `deferred` control (if any) pipelined ahead of it: queued on the
/// connection first (joined futures are polled in order), run first by the server.
fn pipelined<T>(
    runtime: &Runtime,
    client: &Client,
    deferred: String,
    request: impl Future<Output = std::result::Result<T, tokio_postgres::Error>>,
) -> Result<T> {
    if deferred.is_empty() {
        return Ok(runtime.block_on(request)?);
    }
    let (control, outcome) = runtime.block_on(async { tokio::join!(client.batch_execute(&deferred), request) });
    control.map_err(|err| Error::GroupFailed(format!("{deferred}: {}", detail(&err))))?;
    Ok(outcome?)
}
