//! How much memory exporting the audit trail takes: the real `beckon serve` on a copy of a data
//! folder of resolved questions, and the real `beckon audit` writing it to a file, in CSV and in
//! JSON Lines. The client's peak is its resident high-water mark, watched until it exits (see
//! the `reap` module for why not the kernel's `ru_maxrss`); the server's is its high-water
//! mark, reset just before the export, less what it held when the export began. The file is read back
//! into audit rows and counted: an export missing a row is a failure, not a figure.

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use beckon_store::AuditRow;
use serde_json::{Value, json};

use crate::Failure;
use crate::serve_memory::{Server, status_mib};
use crate::stats::ms;

/// The formats exported.
pub const FORMATS: [&str; 2] = ["csv", "jsonl"];

/// One export of the whole trail.
#[derive(Debug, Clone, Copy)]
pub struct Export {
    /// "csv" or "jsonl".
    pub format: &'static str,
    /// Rows written (and read back).
    pub rows: usize,
    /// Bytes written.
    pub bytes: u64,
    /// From starting `beckon audit` to its exit.
    pub wall: Duration,
    /// The most `beckon audit` held resident (MiB).
    pub client_peak_mib: f64,
    /// What `beckon serve` held when the export began (MiB).
    pub server_before_mib: f64,
    /// The most `beckon serve` held during the export (MiB).
    pub server_peak_mib: f64,
    /// Whether the server's high-water mark was reset before the export; when not, its peak
    /// is the most it held since it started, which overstates the export's share.
    pub server_peak_reset: bool,
}

impl Export {
    /// Rows per second.
    pub fn rows_per_second(&self) -> f64 {
        self.rows as f64 / self.wall.as_secs_f64().max(f64::MIN_POSITIVE)
    }

    /// How much the server's memory grew during the export (MiB).
    pub fn server_growth_mib(&self) -> f64 {
        (self.server_peak_mib - self.server_before_mib).max(0.0)
    }

    /// As JSON.
    pub fn to_json(self) -> Value {
        json!({"format": self.format, "rows": self.rows, "bytes": self.bytes, "wall_ms": ms(self.wall),
               "rows_per_s": self.rows_per_second().round(), "client_peak_rss_mib": round1(self.client_peak_mib),
               "server_rss_before_mib": round1(self.server_before_mib),
               "server_peak_rss_mib": round1(self.server_peak_mib),
               "server_growth_mib": round1(self.server_growth_mib()), "server_peak_reset": self.server_peak_reset})
    }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Exports the trail of `source` (a data folder holding `rows` audit rows) in every format,
/// served from a copy of it made under `scratch`.
pub async fn measure(binary: &Path, source: &Path, rows: usize, scratch: &Path) -> Result<Vec<Export>, Failure> {
    let dir = scratch.join(format!("audit-{rows}"));
    std::fs::create_dir_all(&dir)?;
    std::fs::copy(source.join("beckon.db"), dir.join("beckon.db"))?;
    let (server, _client) = Server::start(binary, &dir).await?;
    let mut exports = Vec::new();
    for format in FORMATS {
        let export = export(binary, &dir, &server, format, rows).await?;
        exports.push(export);
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(exports)
}

/// One export by `beckon audit --format <format>` to a file, measured and read back.
async fn export(
    binary: &Path,
    dir: &Path,
    server: &Server,
    format: &'static str,
    rows: usize,
) -> Result<Export, Failure> {
    let out = dir.join(format!("audit.{format}"));
    let errors = dir.join(format!("audit-{format}.err"));
    let server_before_mib = status_mib(server.pid(), "VmRSS:")?;
    // "5" resets the process's resident high-water mark to what it holds now.
    let server_peak_reset = std::fs::write(format!("/proc/{}/clear_refs", server.pid()), "5").is_ok();
    let started = Instant::now();
    let child = Command::new(binary)
        .arg("--data-dir")
        .arg(dir)
        .args(["audit", "--format", format])
        .env_remove("BECKON_DATA_DIR")
        .env_remove("BECKON_URL")
        .env_remove("BECKON_TOKEN")
        .stdin(Stdio::null())
        .stdout(File::create(&out)?)
        .stderr(File::create(&errors)?)
        .spawn()?;
    let (status, client_peak_mib) = tokio::task::spawn_blocking(move || crate::reap::reap(child)).await??;
    let wall = started.elapsed();
    let server_peak_mib = status_mib(server.pid(), "VmHWM:")?;
    if !status {
        return Err(format!("beckon audit --format {format} failed: {}", std::fs::read_to_string(&errors)?).into());
    }
    let bytes = std::fs::metadata(&out)?.len();
    let read_back = read_back(&out, format)?;
    if read_back != rows {
        return Err(format!("beckon audit --format {format} wrote {read_back} rows of {rows}").into());
    }
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&errors);
    Ok(Export { format, rows, bytes, wall, client_peak_mib, server_before_mib, server_peak_mib, server_peak_reset })
}

/// How many audit rows the file at `path` holds, each parsed back into an [`AuditRow`].
pub fn read_back(path: &Path, format: &str) -> Result<usize, Failure> {
    let file = std::io::BufReader::new(File::open(path)?);
    let mut count = 0;
    if format == "csv" {
        for row in csv::Reader::from_reader(file).deserialize::<AuditRow>() {
            row?;
            count += 1;
        }
    } else {
        for line in std::io::BufRead::lines(file) {
            serde_json::from_str::<AuditRow>(&line?)?;
            count += 1;
        }
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use beckon_store::{AuditFilter, Store};

    #[test]
    fn rows_written_in_either_format_are_read_back_and_a_broken_one_is_an_error() {
        let cache = tempfile::tempdir().unwrap();
        let dir = crate::audit_db::data_dir(cache.path(), 30).unwrap();
        let rows = Store::open(dir.join("beckon.db")).unwrap().read().audit(&AuditFilter::default(), 100).unwrap();
        let csv_path = cache.path().join("audit.csv");
        let mut writer = csv::Writer::from_path(&csv_path).unwrap();
        for row in &rows {
            writer.serialize(row).unwrap();
        }
        writer.flush().unwrap();
        assert_eq!(read_back(&csv_path, "csv").unwrap(), 30);
        let jsonl_path = cache.path().join("audit.jsonl");
        let lines: Vec<String> = rows.iter().map(|row| serde_json::to_string(row).unwrap()).collect();
        std::fs::write(&jsonl_path, lines.join("\n")).unwrap();
        assert_eq!(read_back(&jsonl_path, "jsonl").unwrap(), 30);
        std::fs::write(&jsonl_path, format!("{}\n{{\"id\": 1}}", lines[0])).unwrap();
        assert!(read_back(&jsonl_path, "jsonl").is_err());
    }
}
