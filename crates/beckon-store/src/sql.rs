//! One way to run SQL on either backend: SQLite (one person's file) or PostgreSQL (a team
//! server's shared database). Every table's operations are written once against [`Conn`], in
//! the SQL both understand, with `?N` parameters; the few statements that differ say so with
//! [`Conn::pick`]. PostgreSQL must know each parameter's type from the statement, so a
//! parameter only tested for NULL is cast: `(CAST(?2 AS BIGINT) IS NULL OR created_at < ?2)`.

use std::cell::RefCell;
use std::error::Error as StdError;

use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};

use crate::error::{Error, Result};
pub(crate) use crate::pg_client::Pg;

/// The PostgreSQL `LISTEN`/`NOTIFY` channel that carries the last `seq` of each commit that
/// appended events.
pub const EVENTS_CHANNEL: &str = "beckon_events";

/// A connection to run statements on: SQLite's, or PostgreSQL's behind a cell (its client
/// needs `&mut` for every call; the store is used from one thread).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Conn<'c> {
    Sqlite(&'c rusqlite::Connection),
    Postgres(&'c RefCell<Pg>),
}

/// `?N` parameters as PostgreSQL writes them (`$N`). The store's SQL has no `?` in its string
/// literals, so no quoting is tracked.
pub(crate) fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '?' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

/// A parameter's value.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Value<'a> {
    Null,
    Int(i64),
    Text(&'a str),
    Blob(&'a [u8]),
}

/// What can be bound as a parameter.
pub(crate) trait ToValue {
    fn to_value(&self) -> Value<'_>;
}

impl ToValue for i64 {
    fn to_value(&self) -> Value<'_> {
        Value::Int(*self)
    }
}

impl ToValue for str {
    fn to_value(&self) -> Value<'_> {
        Value::Text(self)
    }
}

impl ToValue for String {
    fn to_value(&self) -> Value<'_> {
        Value::Text(self)
    }
}

impl ToValue for [u8] {
    fn to_value(&self) -> Value<'_> {
        Value::Blob(self)
    }
}

impl ToValue for Vec<u8> {
    fn to_value(&self) -> Value<'_> {
        Value::Blob(self)
    }
}

impl<const N: usize> ToValue for [u8; N] {
    fn to_value(&self) -> Value<'_> {
        Value::Blob(self)
    }
}

impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> Value<'_> {
        (**self).to_value()
    }
}

impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> Value<'_> {
        self.as_ref().map_or(Value::Null, ToValue::to_value)
    }
}

/// Statement parameters, in order: `args![id.to_string(), at_ms]`.
macro_rules! args {
    ($($value:expr),* $(,)?) => {
        [$($crate::sql::ToValue::to_value(&$value)),*]
    };
}
pub(crate) use args;

impl rusqlite::ToSql for Value<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match *self {
            Value::Null => ValueRef::Null,
            Value::Int(v) => ValueRef::Integer(v),
            Value::Text(v) => ValueRef::Text(v.as_bytes()),
            Value::Blob(v) => ValueRef::Blob(v),
        }))
    }
}

impl ToSql for Value<'_> {
    fn to_sql(&self, ty: &Type, out: &mut bytes::BytesMut) -> Result<IsNull, Box<dyn StdError + Sync + Send>> {
        match *self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(v) if *ty == Type::INT4 => i32::try_from(v)?.to_sql(ty, out),
            Value::Int(v) if *ty == Type::TEXT => v.to_string().to_sql(ty, out),
            Value::Int(v) => v.to_sql(ty, out),
            Value::Text(v) => v.to_sql(ty, out),
            Value::Blob(v) => v.to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// One row of a result, or the part of it from one column on (see [`Row::after`]).
pub(crate) struct Row<'r> {
    source: Source<'r>,
    /// The column this row's column 0 is.
    from: usize,
}

#[derive(Clone, Copy)]
enum Source<'r> {
    Sqlite(&'r rusqlite::Row<'r>),
    Postgres(&'r tokio_postgres::Row),
}

/// A column's value read into Rust.
pub(crate) trait Column: Sized {
    fn sqlite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Self>;
    fn postgres(row: &tokio_postgres::Row, i: usize) -> std::result::Result<Self, tokio_postgres::Error>;
}

macro_rules! column {
    ($($ty:ty),*) => {$(
        impl Column for $ty {
            fn sqlite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Self> {
                row.get(i)
            }
            fn postgres(row: &tokio_postgres::Row, i: usize) -> std::result::Result<Self, tokio_postgres::Error> {
                row.try_get(i)
            }
        }
    )*};
}
column!(String, Option<String>, Vec<u8>);

impl Column for Option<i64> {
    fn sqlite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Self> {
        row.get(i)
    }
    // Integers of any width: PostgreSQL's own functions answer some with `integer`.
    fn postgres(row: &tokio_postgres::Row, i: usize) -> std::result::Result<Self, tokio_postgres::Error> {
        match row.columns().get(i).map(|column| column.type_().clone()) {
            Some(Type::INT4) => Ok(row.try_get::<_, Option<i32>>(i)?.map(i64::from)),
            Some(Type::INT2) => Ok(row.try_get::<_, Option<i16>>(i)?.map(i64::from)),
            _ => row.try_get(i),
        }
    }
}

impl Column for i64 {
    fn sqlite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Self> {
        row.get(i)
    }
    fn postgres(row: &tokio_postgres::Row, i: usize) -> std::result::Result<Self, tokio_postgres::Error> {
        match row.columns().get(i).map(|column| column.type_().clone()) {
            Some(Type::INT4) => Ok(i64::from(row.try_get::<_, i32>(i)?)),
            Some(Type::INT2) => Ok(i64::from(row.try_get::<_, i16>(i)?)),
            _ => row.try_get(i),
        }
    }
}

impl<'r> Row<'r> {
    fn sqlite(row: &'r rusqlite::Row<'r>) -> Row<'r> {
        Row { source: Source::Sqlite(row), from: 0 }
    }

    fn postgres(row: &'r tokio_postgres::Row) -> Row<'r> {
        Row { source: Source::Postgres(row), from: 0 }
    }

    /// The columns after the first `skipped`, counted from 0: a row that joins two records
    /// read as two.
    pub(crate) fn after(&self, skipped: usize) -> Row<'r> {
        Row { source: self.source, from: self.from + skipped }
    }

    /// Column `i`.
    pub(crate) fn get<T: Column>(&self, i: usize) -> Result<T> {
        let i = self.from + i;
        Ok(match self.source {
            Source::Sqlite(row) => T::sqlite(row, i)?,
            Source::Postgres(row) => T::postgres(row, i)?,
        })
    }

    /// A text column read in place.
    pub(crate) fn text(&self, i: usize) -> Result<&'r str> {
        let i = self.from + i;
        match self.source {
            Source::Sqlite(row) => row.get_ref(i)?.as_str().map_err(|err| invalid_text(i, err)),
            Source::Postgres(row) => Ok(row.try_get(i)?),
        }
    }

    /// A nullable text column read in place.
    pub(crate) fn optional_text(&self, i: usize) -> Result<Option<&'r str>> {
        let i = self.from + i;
        match self.source {
            Source::Sqlite(row) => row.get_ref(i)?.as_str_or_null().map_err(|err| invalid_text(i, err)),
            Source::Postgres(row) => Ok(row.try_get(i)?),
        }
    }
}

fn invalid_text(i: usize, err: impl std::fmt::Display) -> Error {
    Error::InvalidData { table: "row", column: "text", detail: format!("column {i}: {err}") }
}

impl<'c> Conn<'c> {
    /// `sqlite` on SQLite, `postgres` on PostgreSQL: for the few statements the two write
    /// differently.
    pub(crate) fn pick<T>(&self, sqlite: T, postgres: T) -> T {
        match self {
            Conn::Sqlite(_) => sqlite,
            Conn::Postgres(_) => postgres,
        }
    }

    /// Whether this is PostgreSQL.
    pub(crate) fn is_postgres(&self) -> bool {
        matches!(self, Conn::Postgres(_))
    }

    /// Runs a statement; how many rows it changed.
    pub(crate) fn execute(&self, sql: &str, params: &[Value<'_>]) -> Result<usize> {
        match self {
            Conn::Sqlite(conn) => Ok(conn.prepare_cached(sql)?.execute(rusqlite::params_from_iter(params))?),
            Conn::Postgres(pg) => {
                let changed = pg.borrow_mut().execute(sql, &pg_params(params))?;
                Ok(usize::try_from(changed).unwrap_or(usize::MAX))
            }
        }
    }

    /// Runs `f`, statements that may fail on a constraint, so that their failure can be looked
    /// into on the same transaction: PostgreSQL ends a transaction at its first failed
    /// statement unless a savepoint holds it (SQLite keeps it either way).
    pub(crate) fn guarded<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        if !self.is_postgres() {
            return f();
        }
        self.batch("SAVEPOINT guarded")?;
        match f() {
            Ok(value) => {
                self.batch("RELEASE guarded")?;
                Ok(value)
            }
            Err(err) => {
                self.batch("ROLLBACK TO guarded; RELEASE guarded")?;
                Err(err)
            }
        }
    }

    /// On PostgreSQL, sends `sql` (statements without parameters or results) with the next
    /// statement instead of now; see [`Pg::defer`]. On SQLite, runs it now.
    pub(crate) fn defer(&self, sql: &str) -> Result<()> {
        match self {
            Conn::Sqlite(_) => self.batch(sql),
            Conn::Postgres(pg) => {
                pg.borrow_mut().defer(sql);
                Ok(())
            }
        }
    }

    /// Runs statements without parameters or results (transaction control).
    pub(crate) fn batch(&self, sql: &str) -> Result<()> {
        match self {
            Conn::Sqlite(conn) => Ok(conn.prepare_cached(sql)?.execute([]).map(|_| ())?),
            Conn::Postgres(pg) => pg.borrow_mut().batch(sql),
        }
    }

    /// Every row of a query, each read by `read`.
    pub(crate) fn query<T>(
        &self,
        sql: &str,
        params: &[Value<'_>],
        mut read: impl FnMut(&Row<'_>) -> Result<T>,
    ) -> Result<Vec<T>> {
        match self {
            Conn::Sqlite(conn) => {
                let mut stmt = conn.prepare_cached(sql)?;
                let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
                let mut out = Vec::new();
                while let Some(row) = rows.next()? {
                    out.push(read(&Row::sqlite(row))?);
                }
                Ok(out)
            }
            Conn::Postgres(pg) => {
                let rows = pg.borrow_mut().query(sql, &pg_params(params))?;
                rows.iter().map(|row| read(&Row::postgres(row))).collect()
            }
        }
    }

    /// The first row of a query, if any.
    pub(crate) fn query_opt<T>(
        &self,
        sql: &str,
        params: &[Value<'_>],
        read: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<Option<T>> {
        match self {
            Conn::Sqlite(conn) => {
                let mut stmt = conn.prepare_cached(sql)?;
                let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
                rows.next()?.map(|row| read(&Row::sqlite(row))).transpose()
            }
            Conn::Postgres(pg) => {
                let row = pg.borrow_mut().query(sql, &pg_params(params))?.into_iter().next();
                row.map(|row| read(&Row::postgres(&row))).transpose()
            }
        }
    }

    /// The one row a query must return (an aggregate, a row known to exist).
    pub(crate) fn query_one<T>(
        &self,
        sql: &str,
        params: &[Value<'_>],
        read: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        self.query_opt(sql, params, read)?.ok_or_else(|| Error::NoRow(sql.chars().take(80).collect()))
    }
}

/// Parameters as the PostgreSQL client takes them.
fn pg_params<'v>(params: &'v [Value<'_>]) -> Vec<&'v (dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

/// A PostgreSQL error with its cause: the client's own message is often only "error
/// connecting to server".
pub(crate) fn detail(err: &tokio_postgres::Error) -> String {
    match std::error::Error::source(err) {
        Some(source) => format!("{err}: {source}"),
        None => err.to_string(),
    }
}

/// Whether a failure is a constraint the database enforces (unique, check, foreign key).
pub(crate) fn is_constraint(err: &Error) -> bool {
    match err {
        Error::Sqlite(err) => err.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation),
        Error::Postgres(err) => err.code().is_some_and(|code| code.code().starts_with("23")),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_numbered_for_postgres() {
        assert_eq!(
            numbered("UPDATE t SET a = ?2 WHERE id = ?1 AND b = ?12"),
            "UPDATE t SET a = $2 WHERE id = $1 AND b = $12"
        );
        assert_eq!(numbered("SELECT '?' || ?1"), "SELECT '?' || $1");
    }
}
