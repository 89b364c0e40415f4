//! A real PostgreSQL for tests: a cluster of its own made with `initdb` in a temporary folder,
//! listening on a free loopback port and a socket in that folder, stopped and removed when
//! dropped. PostgreSQL refuses to run as root, so under root the cluster belongs to the
//! distribution's `postgres` user and every program runs as that user.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use tempfile::TempDir;

/// Why a test cluster could not be had.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// PostgreSQL's programs were not found.
    #[error(
        "PostgreSQL's programs (initdb, pg_ctl) were not found under /usr/lib/postgresql or on PATH: install the `postgresql` package"
    )]
    NotInstalled,
    /// Running as root, and there is no unprivileged user to run PostgreSQL as.
    #[error("running as root, and there is no `postgres` user to run PostgreSQL as")]
    NoUser,
    /// A program failed.
    #[error("{program} failed: {detail}")]
    Failed {
        /// The program.
        program: String,
        /// What it said.
        detail: String,
    },
    /// The cluster did not accept connections in time.
    #[error("PostgreSQL did not accept connections within {0:?}")]
    NotReady(Duration),
    /// The file system.
    #[error("test cluster: {0}")]
    Io(#[from] std::io::Error),
}

/// A running PostgreSQL cluster of a test's own.
#[derive(Debug)]
pub struct TestCluster {
    bin: PathBuf,
    dir: TempDir,
    port: u16,
    /// The user to run PostgreSQL's programs as, when the tests run as root.
    run_as: Option<String>,
}

const STARTUP: Duration = Duration::from_secs(30);

impl TestCluster {
    /// Makes and starts a cluster, with trust authentication for the role `beckon` on loopback.
    /// `settings` are extra `postgres -c name=value` settings.
    pub fn start(settings: &[(&str, &str)]) -> Result<TestCluster, ClusterError> {
        TestCluster::start_serving(settings, None)
    }

    /// As [`TestCluster::start`], with TLS on (`ssl = on`), presenting the certificate chain
    /// `cert_pem` with its private key `key_pem`.
    pub fn start_with_tls(cert_pem: &str, key_pem: &str) -> Result<TestCluster, ClusterError> {
        TestCluster::start_serving(&[], Some((cert_pem, key_pem)))
    }

    fn start_serving(settings: &[(&str, &str)], tls: Option<(&str, &str)>) -> Result<TestCluster, ClusterError> {
        let bin = bin_dir().ok_or(ClusterError::NotInstalled)?;
        let run_as = if is_root() { Some(postgres_user()?) } else { None };
        let dir = tempfile::Builder::new().prefix("beckon-pg-").tempdir()?;
        if let Some(user) = &run_as {
            run("chown", Command::new("chown").arg(user).arg(dir.path()))?;
        }
        let port = free_port()?;
        let cluster = TestCluster { bin, dir, port, run_as };
        let data = cluster.data_dir();
        cluster.run_pg(
            "initdb",
            &["-D", path_str(&data)?, "-U", "beckon", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"],
        )?;
        let mut options = format!("-p {} -k {} -c listen_addresses=127.0.0.1", port, path_str(cluster.dir.path())?);
        for (name, value) in settings {
            options.push_str(&format!(" -c {name}={value}"));
        }
        if let Some((cert_pem, key_pem)) = tls {
            let (cert, key) = (cluster.dir.path().join("server.crt"), cluster.dir.path().join("server.key"));
            std::fs::write(&cert, cert_pem)?;
            std::fs::write(&key, key_pem)?;
            // PostgreSQL refuses a key others can read, or that is not its own.
            std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
            if let Some(user) = &cluster.run_as {
                run("chown", Command::new("chown").arg(user).arg(&cert).arg(&key))?;
            }
            options.push_str(&format!(
                " -c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
                path_str(&cert)?,
                path_str(&key)?
            ));
        }
        let log = cluster.dir.path().join("postgres.log");
        cluster.run_pg("pg_ctl", &["-D", path_str(&data)?, "-l", path_str(&log)?, "-o", &options, "-w", "start"])?;
        cluster.wait_ready()?;
        Ok(cluster)
    }

    /// The URL of the database `name` on this cluster (`postgres` exists from the start).
    pub fn url(&self, name: &str) -> String {
        format!("postgres://beckon@127.0.0.1:{}/{name}", self.port)
    }

    /// Makes a new, empty database and returns its URL.
    pub fn create_database(&self, name: &str) -> Result<String, ClusterError> {
        let mut client = self.client("postgres")?;
        client
            .batch_execute(&format!("CREATE DATABASE \"{}\"", name.replace('"', "")))
            .map_err(|err| ClusterError::Failed { program: "CREATE DATABASE".into(), detail: err.to_string() })?;
        Ok(self.url(name))
    }

    /// A client of the database `name`.
    pub fn client(&self, name: &str) -> Result<postgres::Client, ClusterError> {
        postgres::Client::connect(&self.url(name), postgres::NoTls)
            .map_err(|err| ClusterError::Failed { program: "connect".into(), detail: err.to_string() })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// What the server has logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("postgres.log")).unwrap_or_default()
    }

    /// Stops the server at once (as a crash would), keeping its files.
    pub fn kill(&self) -> Result<(), ClusterError> {
        self.run_pg("pg_ctl", &["-D", path_str(&self.data_dir())?, "-m", "immediate", "stop"]).map(drop)
    }

    /// Starts it again after [`TestCluster::kill`].
    pub fn restart(&self) -> Result<(), ClusterError> {
        let options = format!("-p {} -k {} -c listen_addresses=127.0.0.1", self.port, path_str(self.dir.path())?);
        let log = self.dir.path().join("postgres.log");
        self.run_pg(
            "pg_ctl",
            &["-D", path_str(&self.data_dir())?, "-l", path_str(&log)?, "-o", &options, "-w", "start"],
        )?;
        self.wait_ready()
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn wait_ready(&self) -> Result<(), ClusterError> {
        let started = Instant::now();
        loop {
            match postgres::Client::connect(&self.url("postgres"), postgres::NoTls) {
                Ok(_) => return Ok(()),
                Err(_) if started.elapsed() < STARTUP => std::thread::sleep(Duration::from_millis(50)),
                Err(_) => return Err(ClusterError::NotReady(STARTUP)),
            }
        }
    }

    fn run_pg(&self, program: &str, args: &[&str]) -> Result<Output, ClusterError> {
        let path = self.bin.join(program);
        let mut command = match &self.run_as {
            Some(user) => {
                let mut command = Command::new("runuser");
                command.args(["-u", user, "--"]).arg(&path);
                command
            }
            None => Command::new(&path),
        };
        command.args(args).current_dir(self.dir.path());
        run(program, &mut command)
    }
}

impl Drop for TestCluster {
    fn drop(&mut self) {
        if let Ok(data) = path_str(&self.data_dir()) {
            let _ = self.run_pg("pg_ctl", &["-D", data, "-m", "immediate", "stop"]);
        }
    }
}

fn run(program: &str, command: &mut Command) -> Result<Output, ClusterError> {
    let output = command.output()?;
    if output.status.success() {
        return Ok(output);
    }
    let detail = format!(
        "{}: {}{}",
        output.status,
        String::from_utf8_lossy(&output.stderr).trim(),
        String::from_utf8_lossy(&output.stdout).trim()
    );
    Err(ClusterError::Failed { program: program.to_owned(), detail })
}

fn path_str(path: &Path) -> Result<&str, ClusterError> {
    path.to_str()
        .ok_or_else(|| ClusterError::Failed { program: "path".into(), detail: format!("{path:?} is not UTF-8") })
}

/// The newest installed PostgreSQL's programs (Debian keeps them per major version).
fn bin_dir() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .find(|dir| dir.join("initdb").exists() && dir.join("pg_ctl").exists())
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

fn postgres_user() -> Result<String, ClusterError> {
    let known = Command::new("id").arg("-u").arg("postgres").output().is_ok_and(|out| out.status.success());
    if known { Ok("postgres".to_owned()) } else { Err(ClusterError::NoUser) }
}

fn free_port() -> Result<u16, ClusterError> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A certificate authority of a test's own: it issues server certificates for the names a test
/// gives, which a client trusts by the authority's certificate alone.
pub struct TestCa {
    issuer: rcgen::CertifiedIssuer<'static, rcgen::KeyPair>,
}

impl std::fmt::Debug for TestCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestCa").finish_non_exhaustive()
    }
}

/// A server certificate and its private key, in PEM.
#[derive(Debug, Clone)]
pub struct IssuedCert {
    pub cert_pem: String,
    pub key_pem: String,
}

impl TestCa {
    /// A new authority, named `name`.
    pub fn new(name: &str) -> Result<TestCa, rcgen::Error> {
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new())?;
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params.distinguished_name.push(rcgen::DnType::CommonName, name);
        params.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign, rcgen::KeyUsagePurpose::CrlSign];
        let issuer = rcgen::CertifiedIssuer::self_signed(params, rcgen::KeyPair::generate()?)?;
        Ok(TestCa { issuer })
    }

    /// The authority's certificate, in PEM: what a client is told to trust.
    pub fn cert_pem(&self) -> String {
        self.issuer.pem()
    }

    /// A server certificate for `names` (host names or IP addresses), issued by this authority.
    pub fn issue(&self, names: &[&str]) -> Result<IssuedCert, rcgen::Error> {
        let mut params =
            rcgen::CertificateParams::new(names.iter().map(|name| (*name).to_owned()).collect::<Vec<_>>())?;
        params.distinguished_name.push(rcgen::DnType::CommonName, names.first().copied().unwrap_or("server"));
        params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
        let key = rcgen::KeyPair::generate()?;
        let cert = params.signed_by(&key, &self.issuer)?;
        Ok(IssuedCert { cert_pem: cert.pem(), key_pem: key.serialize_pem() })
    }
}
