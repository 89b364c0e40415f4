//! Team inboxes' secrets in a real Secret Service: `gnome-keyring-daemon` on a D-Bus session bus
//! of the test's own, in a home of its own (so tests running beside it never meet it), read back
//! by another client of it (`secret-tool`). The app's keyring is whatever
//! `DBUS_SESSION_BUS_ADDRESS` names, which a test cannot set for itself in a process other tests
//! run in: so this test starts the daemons, then runs itself again in a process of its own on
//! that bus, where the checks are made; and once more on a bus address that names nothing.
//!
//! Needs `dbus-daemon`, `gnome-keyring-daemon` and `secret-tool` (Debian's `dbus`,
//! `gnome-keyring` and `libsecret-tools`, installed by `scripts/install-deps`): without them it
//! fails, saying so.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::saved::{Kept, Person, Saved, SavedInbox};
use super::secrets::OsKeyring;

/// Which run this is: unset in the one the test runner starts; the name of the part to check in
/// the runs it starts.
const PART: &str = "BECKON_TEST_SECRET_SERVICE_PART";

/// What the keyring entries are found by, as another program looks them up.
const SERVICE: &str = "dev.beckon.desktop.team-inbox";

const ACME_SECRET: &str = "acme-session-3f9a1c0e7b2d4e6f8a0b1c2d3e4f5a6b";
const GLOBEX_SECRET: &str = "globex-session-9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b";

/// How long the daemons may take to be ready.
const PATIENCE: Duration = Duration::from_secs(30);

#[test]
fn team_inbox_secrets_are_kept_in_a_real_secret_service_and_in_the_file_without_one() {
    match std::env::var(PART).as_deref() {
        Ok("keyring") => secrets_live_in_the_keyring(),
        Ok("no-bus") => secrets_live_in_the_file_without_a_bus(),
        _ => {
            let session = Session::start();
            session.run_part("keyring", &session.bus);
            let nowhere = format!("unix:path={}", session.dir.path().join("no-bus-here").display());
            session.run_part("no-bus", &nowhere);
        }
    }
}

/// A session bus with a Secret Service on it, in a home of its own; stopped when dropped.
struct Session {
    dir: tempfile::TempDir,
    bus: String,
    bus_daemon: Child,
    keyring_daemon: Option<Child>,
}

impl Session {
    fn start() -> Session {
        let dir = tempfile::tempdir().expect("a temporary folder");
        for folder in ["home/.local/share", "home/.config", "home/.cache", "run"] {
            std::fs::create_dir_all(dir.path().join(folder)).expect("the session's folders");
        }
        std::fs::set_permissions(dir.path().join("run"), std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .expect("a private runtime folder");
        // A bus that starts no service: the system's service file would start another
        // gnome-keyring-daemon, in the real home, at the first call that comes before ours is up.
        let config = dir.path().join("bus.conf");
        std::fs::write(
            &config,
            format!(
                "<busconfig><type>session</type><listen>unix:dir={}</listen><auth>EXTERNAL</auth>\
                 <policy context=\"default\"><allow send_destination=\"*\" eavesdrop=\"true\"/>\
                 <allow eavesdrop=\"true\"/><allow own=\"*\"/></policy></busconfig>\n",
                dir.path().display()
            ),
        )
        .expect("the bus's configuration");
        let mut bus_daemon = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", config.display()))
            .args(["--nofork", "--print-address=1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start dbus-daemon (Debian's dbus package): {err}"));
        let mut address = String::new();
        let stdout = bus_daemon.stdout.take().expect("dbus-daemon's stdout");
        BufReader::new(stdout).read_line(&mut address).expect("dbus-daemon's address");
        let bus = address.trim().to_owned();
        assert!(!bus.is_empty(), "dbus-daemon printed no address");
        let mut session = Session { dir, bus, bus_daemon, keyring_daemon: None };
        session.start_keyring();
        session
    }

    /// The environment of a program in this session: its home, its folders, its bus.
    fn apply(&self, command: &mut Command, bus: &str) {
        let home = self.dir.path().join("home");
        command
            .env("HOME", &home)
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("XDG_RUNTIME_DIR", self.dir.path().join("run"))
            .env("DBUS_SESSION_BUS_ADDRESS", bus);
    }

    /// Starts gnome-keyring's Secret Service, unlocking (creating) the login keyring with a
    /// password given on stdin, as a desktop's login does, and waits until it keeps secrets.
    /// (An empty password unlocks nothing here: the daemon then creates no login keyring, and
    /// every store fails for want of a default collection.)
    fn start_keyring(&mut self) {
        let log = self.dir.path().join("gnome-keyring.log");
        let mut command = Command::new("gnome-keyring-daemon");
        self.apply(&mut command, &self.bus);
        let mut daemon = command
            .args(["--foreground", "--unlock", "--components=secrets"])
            .stdin(Stdio::piped())
            .stdout(std::fs::File::create(&log).expect("the daemon's log"))
            .stderr(std::fs::File::create(self.dir.path().join("gnome-keyring.err")).expect("the daemon's log"))
            .spawn()
            .unwrap_or_else(|err| {
                panic!("cannot start gnome-keyring-daemon (Debian's gnome-keyring; scripts/install-deps): {err}")
            });
        let mut stdin = daemon.stdin.take().expect("the daemon's stdin");
        stdin.write_all(b"beckon-test-login").expect("the login password");
        drop(stdin);
        self.keyring_daemon = Some(daemon);

        let started = Instant::now();
        loop {
            let mut store = self.secret_tool(&self.bus);
            let stored = store
                .args(["store", "--label=probe", "beckon-test", "probe"])
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .and_then(|mut child| {
                    child.stdin.take().map(|mut stdin| stdin.write_all(b"probe")).transpose()?;
                    child.wait_with_output()
                })
                .unwrap_or_else(|err| panic!("cannot run secret-tool (Debian's libsecret-tools): {err}"));
            if stored.status.success() {
                break;
            }
            let exited = self.keyring_daemon.as_mut().and_then(|daemon| daemon.try_wait().ok().flatten());
            if exited.is_some() || started.elapsed() > PATIENCE {
                panic!(
                    "gnome-keyring-daemon keeps no secret ({}); secret-tool said {:?}; the daemon said {:?}",
                    exited.map_or("still running".to_owned(), |status| format!("exited: {status}")),
                    String::from_utf8_lossy(&stored.stderr),
                    std::fs::read_to_string(self.dir.path().join("gnome-keyring.err")).unwrap_or_default(),
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let cleared = self.secret_tool(&self.bus).args(["clear", "beckon-test", "probe"]).status();
        assert!(cleared.is_ok_and(|status| status.success()), "the probe could not be cleared");
    }

    fn secret_tool(&self, bus: &str) -> Command {
        let mut command = Command::new("secret-tool");
        self.apply(&mut command, bus);
        command
    }

    /// Runs this test again, in a process of its own on `bus`, checking `part`.
    fn run_part(&self, part: &str, bus: &str) {
        let exe = std::env::current_exe().expect("the test binary");
        let module = module_path!().split_once("::").map_or(module_path!(), |(_, rest)| rest);
        let name =
            format!("{module}::team_inbox_secrets_are_kept_in_a_real_secret_service_and_in_the_file_without_one");
        let mut command = Command::new(exe);
        self.apply(&mut command, bus);
        let Output { status, stdout, stderr } = command
            .args([name.as_str(), "--exact", "--nocapture", "--test-threads=1"])
            .env(PART, part)
            .output()
            .expect("the test binary runs");
        let said = format!("{}{}", String::from_utf8_lossy(&stdout), String::from_utf8_lossy(&stderr));
        assert!(status.success(), "the {part} part failed ({status}):\n{said}");
        assert!(said.contains("1 passed"), "the {part} part ran no test:\n{said}");
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        for daemon in self.keyring_daemon.iter_mut().chain([&mut self.bus_daemon]) {
            let _ = daemon.kill();
            let _ = daemon.wait();
        }
    }
}

/// What the Secret Service gives another program for inbox `id`, asked through
/// `DBUS_SESSION_BUS_ADDRESS` as this process was started with.
fn look_up(id: &str) -> Option<String> {
    let output = Command::new("secret-tool")
        .args(["lookup", "service", SERVICE, "username", id])
        .output()
        .expect("secret-tool runs");
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

fn inbox(id: &str, name: &str) -> SavedInbox {
    SavedInbox {
        id: id.into(),
        name: name.into(),
        url: format!("https://beckon.{}.example", name.to_lowercase()),
        secret: None,
        person: Some(Person { subject: "ada".into(), name: Some("Ada".into()), email: None }),
    }
}

/// The app starting again on `data`: the file read, the secrets fetched, the file saved again
/// when one moved out of it.
fn start_again(data: &Path) -> Vec<SavedInbox> {
    let saved = Saved::new(data, Arc::new(OsKeyring));
    let mut inboxes = saved.read();
    if saved.fetch_secrets(&mut inboxes) {
        saved.save(&inboxes).expect("the file is written");
    }
    inboxes
}

fn file(data: &Path) -> String {
    std::fs::read_to_string(data.join("team-inboxes.json")).expect("the file")
}

fn secret_of(inboxes: &[SavedInbox], id: &str) -> Option<(String, Kept)> {
    let inbox = inboxes.iter().find(|inbox| inbox.id == id)?;
    inbox.secret.as_ref().map(|secret| (secret.value().to_owned(), secret.kept()))
}

fn secrets_live_in_the_keyring() {
    let data = tempfile::tempdir().expect("a data folder");
    let saved = Saved::new(data.path(), Arc::new(OsKeyring));

    // Signed in: the secret goes to the keyring, the rest to the file.
    let mut acme = inbox("team-acme", "Acme");
    acme.secret = Some(saved.keep(&acme.id, ACME_SECRET.into()));
    saved.save(std::slice::from_ref(&acme)).expect("the file is written");
    assert_eq!(look_up("team-acme").as_deref(), Some(ACME_SECRET), "another client reads it from the keyring");
    let written = file(data.path());
    assert!(!written.contains(ACME_SECRET), "the secret is not in the file:\n{written}");
    assert!(written.contains("https://beckon.acme.example") && written.contains("Ada"), "{written}");

    // Started again: the keyring gives it back.
    let loaded = start_again(data.path());
    assert_eq!(secret_of(&loaded, "team-acme"), Some((ACME_SECRET.into(), Kept::Keyring)));

    // A file from before the keyring, a secret in it: moved into the keyring, out of the file.
    let mut old: serde_json::Value = serde_json::from_str(&file(data.path())).expect("the file is JSON");
    let globex = serde_json::json!({"id": "team-globex", "name": "Globex", "url": "https://beckon.globex.example",
                                    "secret": GLOBEX_SECRET, "person": null});
    old.as_array_mut().expect("a list").push(globex);
    std::fs::write(data.path().join("team-inboxes.json"), old.to_string()).expect("the old file");
    let moved = start_again(data.path());
    assert_eq!(secret_of(&moved, "team-globex"), Some((GLOBEX_SECRET.into(), Kept::Keyring)));
    assert_eq!(secret_of(&moved, "team-acme"), Some((ACME_SECRET.into(), Kept::Keyring)));
    assert_eq!(look_up("team-globex").as_deref(), Some(GLOBEX_SECRET));
    let written = file(data.path());
    assert!(!written.contains(GLOBEX_SECRET) && written.contains("Globex"), "moved out of the file:\n{written}");
    assert_eq!(start_again(data.path()), moved, "and read back from the keyring");

    // Removed: the keyring forgets them.
    saved.forget("team-acme").expect("the keyring deletes the secret");
    saved.forget("team-globex").expect("the keyring deletes the secret");
    assert_eq!(look_up("team-acme"), None);
    assert_eq!(look_up("team-globex"), None);
    assert!(start_again(data.path()).iter().all(|inbox| inbox.secret.is_none()));
    saved.forget("team-acme").expect("forgetting what is not there is no error");
}

fn secrets_live_in_the_file_without_a_bus() {
    let data = tempfile::tempdir().expect("a data folder");
    let saved = Saved::new(data.path(), Arc::new(OsKeyring));
    let mut acme = inbox("team-acme", "Acme");
    acme.secret = Some(saved.keep(&acme.id, ACME_SECRET.into()));
    assert_eq!(acme.secret.as_ref().map(|secret| secret.kept()), Some(Kept::File));
    saved.save(std::slice::from_ref(&acme)).expect("the file is written");
    assert!(file(data.path()).contains(ACME_SECRET));
    let mode = std::fs::metadata(data.path().join("team-inboxes.json")).expect("the file").permissions();
    assert_eq!(std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777, 0o600);
    assert_eq!(secret_of(&start_again(data.path()), "team-acme"), Some((ACME_SECRET.into(), Kept::File)));
}
