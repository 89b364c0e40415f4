//! The packages people install (`scripts/package`): what the .deb and the .rpm hold (the
//! systemd unit for `beckon serve` among it), and the .deb installed for real with dpkg — its
//! unit verified where it lies, the app started from /usr/bin on a home of its own, answering a
//! question the installed `beckon ask` puts, then removed without a trace outside the person's
//! data.
//!
//! These read the packages `scripts/package --debug` leaves under target/debug/bundle
//! (`BECKON_PACKAGE_PROFILE=release` checks the release ones) and fail, saying so, when there
//! are none. Installing needs root, as in CI (or a password-less `sudo`).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use beckon_e2e::packages::{self, Installed, Packages};
use beckon_e2e::{Bus, Failure, Home, PATIENCE, eventually, gateway};
use serde_json::json;

/// The name the bundler gives the app's binary, its icon and its window class.
const APP: &str = "beckon-desktop";
/// Where the packages put the systemd unit that runs `beckon serve`.
const UNIT: &str = "/usr/lib/systemd/system/beckon.service";
/// A PATH as a fresh login has it, so `beckon` is found where the package put it and not in
/// a developer's ~/.cargo/bin.
const SYSTEM_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The app icons in icons/ (every PNG but the tray's), each with its width in pixels.
fn app_icons() -> Vec<(PathBuf, u32)> {
    let mut icons: Vec<(PathBuf, u32)> = std::fs::read_dir(repo().join("icons"))
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.ends_with(".png") && !name.starts_with("tray")
        })
        .map(|path| {
            // A PNG's width is the big-endian u32 at byte 16, inside the IHDR chunk.
            let bytes = std::fs::read(&path).unwrap();
            let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
            (path, width)
        })
        .collect();
    icons.sort_by_key(|(_, width)| *width);
    icons
}

/// The built book's files (`mdbook build docs`, which `scripts/package` runs), relative to it.
fn book_files() -> Vec<String> {
    fn walk(dir: &Path, root: &Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, root, found);
            } else {
                found.push(path.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let book = beckon_e2e::target_dir().join("book");
    assert!(book.join("index.html").exists(), "no book at {}: scripts/package builds it", book.display());
    let mut found = Vec::new();
    walk(&book, &book, &mut found);
    found
}

/// Every file the packages must install, and nothing else.
fn expected_files() -> Vec<String> {
    let mut files = vec![
        "/usr/bin/beckon".to_owned(),
        "/usr/bin/beckon-server".to_owned(),
        format!("/usr/bin/{APP}"),
        "/usr/share/applications/Beckon.desktop".to_owned(),
        "/usr/share/metainfo/dev.beckon.desktop.metainfo.xml".to_owned(),
        UNIT.to_owned(),
        format!("/usr/share/icons/hicolor/scalable/apps/{APP}.svg"),
    ];
    files.extend(app_icons().iter().map(|(_, w)| format!("/usr/share/icons/hicolor/{w}x{w}/apps/{APP}.png")));
    files.extend(book_files().iter().map(|file| format!("/usr/share/doc/beckon/book/{file}")));
    files.sort();
    files
}

fn diff(what: &str, found: &[String], expected: &[String]) -> Result<(), Failure> {
    let missing: Vec<_> = expected.iter().filter(|f| !found.contains(f)).collect();
    let extra: Vec<_> = found.iter().filter(|f| !expected.contains(f)).collect();
    if missing.is_empty() && extra.is_empty() {
        return Ok(());
    }
    Err(format!("{what}: missing {missing:?}, unexpected {extra:?}").into())
}

/// The value of `key` in the desktop entry's text.
fn entry<'a>(desktop: &'a str, key: &str) -> Option<&'a str> {
    desktop.lines().find_map(|line| line.strip_prefix(key)?.strip_prefix('='))
}

#[test]
fn the_deb_holds_the_app_the_command_the_icons_the_link_handler_and_the_metadata() -> Result<(), Failure> {
    let built = Packages::built()?;
    diff("the .deb's files", &packages::deb_files(&built.deb)?, &expected_files())?;
    let depends = packages::deb_field(&built.deb, "Depends")?;
    assert!(depends.contains("libwebkit2gtk-4.1-0"), "Depends: {depends}");

    let root = tempfile::tempdir()?;
    packages::unpack_deb(&built.deb, root.path())?;
    let at = |path: &str| root.path().join(path.trim_start_matches('/'));

    // The desktop entry: valid, starts the app with the links it is given, opens beckon://.
    let desktop_file = at("/usr/share/applications/Beckon.desktop");
    let report = packages::run(Command::new("desktop-file-validate").arg(&desktop_file))?;
    assert!(
        !report.lines().any(|line| line.contains("error:") || line.contains("warning:")),
        "desktop-file-validate: {report}"
    );
    let desktop = std::fs::read_to_string(&desktop_file)?;
    assert_eq!(entry(&desktop, "MimeType"), Some("x-scheme-handler/beckon;"), "{desktop}");
    assert_eq!(entry(&desktop, "Exec"), Some(&*format!("{APP} %U")), "{desktop}");
    assert_eq!(entry(&desktop, "Icon"), Some(APP), "{desktop}");

    // The icons, each at its own size, as icons/ has them.
    for (source, width) in app_icons() {
        let installed = at(&format!("/usr/share/icons/hicolor/{width}x{width}/apps/{APP}.png"));
        assert!(
            std::fs::read(&installed)? == std::fs::read(&source)?,
            "{} is not {}",
            installed.display(),
            source.display()
        );
    }
    assert!(app_icons().len() >= 4, "icons/ has the app icon at 32, 128, 256 and 512 px");

    // AppStream metadata that a software centre accepts.
    let metainfo = at("/usr/share/metainfo/dev.beckon.desktop.metainfo.xml");
    packages::run(Command::new("appstreamcli").args(["validate", "--no-net"]).arg(&metainfo))?;

    // The command runs from where the package puts it.
    let version = packages::run(Command::new(at("/usr/bin/beckon")).arg("--version"))?;
    assert_eq!(version.trim(), format!("beckon {}", packages::deb_field(&built.deb, "Version")?));
    // `beckon serve` is the `beckon-server` installed beside it.
    let serve = packages::run(Command::new(at("/usr/bin/beckon")).args(["serve", "--help"]))?;
    assert!(serve.contains("Usage: beckon serve [OPTIONS]") && serve.contains("--listen"), "{serve}");

    // The systemd unit, as packaging/systemd has it, starting the command the package installs
    // (verified as installed below; crates/beckon-cli's tests verify it against a build).
    let unit = std::fs::read_to_string(at(UNIT))?;
    assert_eq!(unit, std::fs::read_to_string(repo().join("packaging/systemd/beckon.service"))?);
    assert!(unit.contains("\nExecStart=/usr/bin/beckon --data-dir /var/lib/beckon serve "), "{unit}");
    Ok(())
}

#[test]
fn the_rpm_holds_what_the_deb_holds() -> Result<(), Failure> {
    let built = Packages::built()?;
    let rpm = packages::rpm_files(&built.rpm)?;
    diff("the .rpm's files", &rpm.keys().cloned().collect::<Vec<_>>(), &expected_files())?;
    let root = tempfile::tempdir()?;
    packages::unpack_deb(&built.deb, root.path())?;
    for (path, file) in &rpm {
        // The bundler stamps each package's kind into the app's binary, so only it differs.
        if path != &format!("/usr/bin/{APP}") {
            let in_deb = packages::sha256(&root.path().join(path.trim_start_matches('/')))?;
            assert_eq!(file.sha256, in_deb, "{path} differs between the .rpm and the .deb");
        }
        // The .rpm keeps the modes the files have in the checkout (the .deb sets its own).
        let expected = if path.starts_with("/usr/bin/") { "-rwxr-xr-x" } else { "-rw-r--r--" };
        assert_eq!(file.perms, expected, "{path} in the .rpm (a checkout made with umask 022 has these)");
    }
    Ok(())
}

/// A program the test started, stopped (SIGTERM, then SIGKILL) if the test ends first.
struct Started {
    child: Child,
    name: &'static str,
}

impl Started {
    /// Waits at most [`PATIENCE`] for it to exit.
    async fn exit(&mut self) -> Result<std::process::ExitStatus, Failure> {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok(status);
            }
            if started.elapsed() > PATIENCE {
                return Err(format!("{} did not exit within {PATIENCE:?}", self.name).into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn terminate(&self) {
        let _ = Command::new("kill").arg("-TERM").arg(self.child.id().to_string()).status();
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.terminate();
            let started = Instant::now();
            while matches!(self.child.try_wait(), Ok(None)) && started.elapsed() < PATIENCE {
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `program` in `home` as the person whose home it is would run it: their HOME and XDG
/// folders, the system's PATH, and no BECKON_DATA_DIR, so the app and the command find their
/// data folder where an installed Beckon keeps it.
fn as_the_person(home: &Home, bus: &Bus, program: &str) -> Command {
    let mut command = bus.command(program);
    home.apply(&mut command);
    command.env_remove("BECKON_DATA_DIR").env("PATH", SYSTEM_PATH);
    command
}

#[tokio::test]
async fn the_installed_deb_answers_through_the_beckon_command_and_uninstalls_cleanly() -> Result<(), Failure> {
    let built = Packages::built()?;
    if std::env::var_os("DISPLAY").is_none() {
        return Err("no DISPLAY for the app's window: run this under xvfb-run, as scripts/test does".into());
    }
    let files = packages::deb_files(&built.deb)?;
    let installed = Installed::install(&built.deb)?;
    for file in &files {
        assert!(Path::new(file).is_file(), "dpkg -i did not install {file}");
    }
    // The unit as installed, its program there: `verify` says nothing of it (it exits 0 on a
    // setting it ignores, saying so, so what it says is what counts).
    let verified = Command::new("systemd-analyze").args(["verify", UNIT]).output()?;
    let said = format!("{}{}", String::from_utf8_lossy(&verified.stdout), String::from_utf8_lossy(&verified.stderr));
    assert!(verified.status.success() && said.trim().is_empty(), "systemd-analyze verify {UNIT}:\n{said}");

    let home = Home::new()?;
    let bus = Bus::start()?;
    // The system knows the app opens beckon:// links before it ever ran (it registers itself
    // again under the person's home when it starts).
    let mime = packages::run(
        as_the_person(&home, &bus, "gio")
            .args(["mime", "x-scheme-handler/beckon"])
            .env("XDG_DATA_DIRS", "/usr/local/share:/usr/share"),
    )?;
    assert!(mime.lines().any(|line| line.trim() == "Beckon.desktop"), "gio mime x-scheme-handler/beckon:\n{mime}");
    let which = packages::run(as_the_person(&home, &bus, "sh").args(["-c", "command -v beckon"]))?;
    assert_eq!(which.trim(), "/usr/bin/beckon");
    let version = packages::run(as_the_person(&home, &bus, "beckon").arg("--version"))?;
    assert_eq!(version.trim(), format!("beckon {}", packages::deb_field(&built.deb, "Version")?));
    // `beckon serve` is the `beckon-server` installed beside it; `beckon docs` finds the book.
    let serve = packages::run(as_the_person(&home, &bus, "beckon").args(["serve", "--help"]))?;
    let book = packages::run(as_the_person(&home, &bus, "beckon").args(["docs", "--print"]))?;
    assert_eq!(book.trim(), "/usr/share/doc/beckon/book/index.html");
    assert!(serve.contains("Usage: beckon serve [OPTIONS]") && serve.contains("--listen"), "{serve}");

    // The installed app, from the menu's command, on a port of its own (7393 may be taken).
    let log = home.path().join("app.log");
    let mut app = Started {
        child: as_the_person(&home, &bus, APP)
            .env("BECKON_GATEWAY_PORT", "0")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log)?)
            .spawn()?,
        name: "the installed app",
    };
    let data_dir = home.path().join(".local/share/dev.beckon.desktop");
    let discovery = data_dir.join("gateway.json");
    let found = eventually("the installed app's gateway.json", || {
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&discovery).ok()?).ok()
    })
    .await;
    let found = found
        .map_err(|err| format!("{err}; the app logged:\n{}", std::fs::read_to_string(&log).unwrap_or_default()))?;
    // The gateway is the installed binary's, started above, and not some other Beckon's.
    assert_eq!(found["pid"], app.child.id(), "gateway.json: {found}");
    let exe = std::fs::read_link(format!("/proc/{}/exe", app.child.id()))?;
    assert_eq!(exe, Path::new("/usr/bin").join(APP));

    // `beckon ask` waits for the person; they answer over the gateway's HTTP API.
    let question = "Ship the packaged build?";
    let answer_file = home.path().join("ask.out");
    let mut ask = Started {
        child: as_the_person(&home, &bus, "beckon")
            .args(["ask", question, "-o", "Yes", "-o", "No", "--agent", "packager"])
            .stdout(std::fs::File::create(&answer_file)?)
            .stderr(Stdio::inherit())
            .spawn()?,
        name: "beckon ask",
    };
    let asked_at = Instant::now();
    let id = loop {
        let (status, listed) = gateway::request_in(&data_dir, "GET", "/v1/questions?status=pending", None).await?;
        assert!(status.starts_with("HTTP/1.1 200"), "GET /v1/questions: {status}\n{listed}");
        let asked = listed["questions"].as_array().and_then(|all| all.iter().find(|q| q["agent"] == "packager"));
        if let Some(id) = asked.and_then(|q| q["request_id"].as_str()) {
            break id.to_owned();
        }
        if let Some(status) = ask.child.try_wait()? {
            return Err(format!("beckon ask exited ({status}) before its question was pending").into());
        }
        if asked_at.elapsed() > PATIENCE {
            return Err(format!("beckon ask's question was not pending within {PATIENCE:?}: {listed}").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let path = format!("/v1/questions/{id}/answer");
    let (status, reply) = gateway::request_in(&data_dir, "POST", &path, Some(&json!({"answer": "Yes"}))).await?;
    assert!(status.starts_with("HTTP/1.1 200"), "POST {path}: {status}\n{reply}");
    let exited = ask.exit().await?;
    assert!(exited.success(), "beckon ask exited with {exited}");
    assert_eq!(std::fs::read_to_string(&answer_file)?.trim(), "Yes");

    // Quit as a session's end would (the app does not catch SIGTERM: it simply ends).
    app.terminate();
    app.exit().await?;

    // Removed: every file of the package is gone; the person's data stays.
    installed.remove()?;
    let left: Vec<&String> = files.iter().filter(|file| Path::new(file).exists()).collect();
    assert!(left.is_empty(), "dpkg -r left {left:?}");
    assert!(!packages::is_installed(&packages::deb_field(&built.deb, "Package")?)?, "dpkg still lists the package");
    assert!(data_dir.join("beckon.db").is_file(), "the person's data folder went with the package");
    Ok(())
}
