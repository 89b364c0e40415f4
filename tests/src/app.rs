//! A running app and the WebDriver session on its window.

use std::fs::{File, TryLockError};
use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

use crate::{Bus, Failure, Home, PATIENCE, app_binary};

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap_or(4444)
}

/// The app under tauri-driver.
pub struct App {
    driver: Child,
    /// The WebDriver client.
    pub client: Client,
    bus: Option<Bus>,
    /// The binary tauri-driver started.
    program: PathBuf,
    /// The lock file of the data folder the app runs on.
    data_lock: PathBuf,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("App")
    }
}

impl App {
    /// Starts the app in `home` on a fresh bus of its own.
    pub async fn launch(home: &Home) -> Result<App, Failure> {
        App::launch_on(home, Bus::start()?).await
    }

    /// Starts the app in `home` on `bus` (which may already run a notification daemon or a
    /// tray watcher).
    pub async fn launch_on(home: &Home, bus: Bus) -> Result<App, Failure> {
        let address = bus.address.clone();
        App::start(home, &address, Some(bus), &[]).await
    }

    /// Starts `program` (another build of the app, or another Tauri app) in `home` on `bus`.
    pub async fn launch_program(home: &Home, bus: Bus, program: &Path) -> Result<App, Failure> {
        let address = bus.address.clone();
        App::start_program(program, home, &address, Some(bus), &[], &[]).await
    }

    /// Starts the app in `home` on `bus` from `link`, as a desktop does when a `beckon://`
    /// link is opened and Beckon is not running.
    pub async fn launch_with_link(home: &Home, bus: Bus, link: &str) -> Result<App, Failure> {
        let address = bus.address.clone();
        App::start(home, &address, Some(bus), &[link]).await
    }

    /// Starts the app in `home` on `bus` as its start-at-login entry does: with `--hidden`.
    pub async fn launch_hidden(home: &Home, bus: Bus) -> Result<App, Failure> {
        let address = bus.address.clone();
        App::start(home, &address, Some(bus), &["--hidden"]).await
    }

    /// Starts the app in `home` with no session bus at all: the address names nothing.
    pub async fn launch_without_bus(home: &Home) -> Result<App, Failure> {
        let address = format!("unix:path={}", home.path().join("no-bus-here").display());
        App::start(home, &address, None, &[]).await
    }

    /// Starts the app in `home` on `bus` with `variables` set in its environment.
    pub async fn launch_with_env(home: &Home, bus: Bus, variables: &[(&str, &str)]) -> Result<App, Failure> {
        let address = bus.address.clone();
        App::start_program(&app_binary(), home, &address, Some(bus), &[], variables).await
    }

    /// Starts `program` in `home` on `bus` with `variables` set in its environment.
    pub async fn launch_program_with_env(
        home: &Home,
        bus: Bus,
        program: &Path,
        variables: &[(&str, &str)],
    ) -> Result<App, Failure> {
        let address = bus.address.clone();
        App::start_program(program, home, &address, Some(bus), &[], variables).await
    }

    async fn start(home: &Home, bus_address: &str, bus: Option<Bus>, args: &[&str]) -> Result<App, Failure> {
        App::start_program(&app_binary(), home, bus_address, bus, args, &[]).await
    }

    async fn start_program(
        program: &Path,
        home: &Home,
        bus_address: &str,
        bus: Option<Bus>,
        args: &[&str],
        variables: &[(&str, &str)],
    ) -> Result<App, Failure> {
        // A free port can be taken between the moment it is picked and the moment WebKitWebDriver
        // listens on it (it then exits, and the session would talk to whoever holds the port):
        // such a start is retried with new ports.
        let mut attempt = 1;
        let (driver, client) = loop {
            match App::drive(program, home, bus_address, args, variables).await {
                Ok(started) => break started,
                Err(err) if attempt < 3 => {
                    eprintln!("the app's WebDriver session did not start ({err}); trying again on other ports");
                    attempt += 1;
                }
                Err(err) => return Err(err),
            }
        };
        let data_lock = home.data_dir().join("beckon.lock");
        Ok(App { driver, client, bus, program: program.to_owned(), data_lock })
    }

    /// Starts tauri-driver on two free ports and opens a WebDriver session that starts `program`;
    /// on failure, the driver is stopped.
    async fn drive(
        program: &Path,
        home: &Home,
        bus_address: &str,
        args: &[&str],
        variables: &[(&str, &str)],
    ) -> Result<(Child, Client), Failure> {
        let (port, native) = (free_port(), free_port());
        let mut command = Command::new("tauri-driver");
        command.arg("--port").arg(port.to_string()).arg("--native-port").arg(native.to_string());
        command.stdout(Stdio::null()).stderr(Stdio::inherit());
        command.env("DBUS_SESSION_BUS_ADDRESS", bus_address);
        home.apply(&mut command);
        command.envs(variables.iter().copied());
        let mut driver = command.spawn().map_err(|err| format!("cannot start tauri-driver: {err}"))?;
        let url = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        // tauri-driver listens before the WebKitWebDriver it forwards to does: wait for both.
        while [port, native].iter().any(|p| std::net::TcpStream::connect(("127.0.0.1", *p)).is_err()) {
            if started.elapsed() > PATIENCE {
                stop(&mut driver);
                return Err("tauri-driver and WebKitWebDriver did not open their ports".into());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("browserName".into(), json!("wry"));
        capabilities.insert("tauri:options".into(), json!({"application": program, "args": args}));
        match ClientBuilder::new(HttpConnector::new()).capabilities(capabilities).connect(&url).await {
            Ok(client) => Ok((driver, client)),
            Err(err) => {
                stop(&mut driver);
                Err(err.into())
            }
        }
    }

    /// The app's session bus.
    pub fn bus(&self) -> Result<&Bus, Failure> {
        self.bus.as_ref().ok_or_else(|| "this app runs without a session bus".into())
    }

    /// Launches the app binary a second time with `link`, as a desktop would for a
    /// `beckon://` link, and returns how that process exited.
    pub async fn open_link(&self, home: &Home, link: &str) -> Result<ExitStatus, Failure> {
        self.launch_again(home, &[link]).await
    }

    /// Launches the app binary a second time with `args` (a link, `--hidden` as its
    /// start-at-login entry would, or nothing as the app menu would), and returns how that
    /// process exited.
    pub async fn launch_again(&self, home: &Home, args: &[&str]) -> Result<ExitStatus, Failure> {
        let mut command = self.bus()?.command(&self.program.to_string_lossy());
        command.args(args).stdout(Stdio::null()).stderr(Stdio::null());
        home.apply(&mut command);
        let mut second = command.spawn()?;
        let started = Instant::now();
        loop {
            if let Some(status) = second.try_wait()? {
                return Ok(status);
            }
            if started.elapsed() > PATIENCE {
                let _ = second.kill();
                return Err(format!("a second launch with {args:?} did not exit").into());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits for an element matching `css` whose text contains `text` (any text when empty).
    pub async fn find(&self, css: &str, text: &str) -> Result<Element, Failure> {
        let started = Instant::now();
        loop {
            if let Ok(elements) = self.client.find_all(Locator::Css(css)).await {
                for element in elements {
                    if text.is_empty() || element.text().await.unwrap_or_default().contains(text) {
                        return Ok(element);
                    }
                }
            }
            if started.elapsed() > PATIENCE {
                let page = self.text().await.unwrap_or_default();
                return Err(
                    format!("no {css:?} containing {text:?} within {PATIENCE:?}; the window shows:\n{page}").into()
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits for an element matching `css` whose text content holds `text`, and gives back that
    /// text content. Unlike [`App::find`], this reads the page's own text, so it finds text
    /// WebDriver does not render as visible (the inbox's rows, laid out in a windowed list).
    pub async fn shown(&self, css: &str, text: &str) -> Result<String, Failure> {
        let script = format!(
            "return [...document.querySelectorAll({})].map(e => e.textContent).find(t => t.includes({})) ?? null",
            serde_json::json!(css),
            serde_json::json!(text)
        );
        let started = Instant::now();
        loop {
            if let Some(found) = self.eval(&script).await?.as_str() {
                return Ok(found.to_owned());
            }
            if started.elapsed() > PATIENCE {
                let page = self.text().await.unwrap_or_default();
                return Err(
                    format!("no {css:?} holding {text:?} within {PATIENCE:?}; the window shows:\n{page}").into()
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Clicks the first element matching `css` whose text content holds `text` (see
    /// [`App::shown`]), once there is one.
    pub async fn click_shown(&self, css: &str, text: &str) -> Result<(), Failure> {
        self.shown(css, text).await?;
        let script = format!(
            "[...document.querySelectorAll({})].find(e => e.textContent.includes({})).click(); return true",
            serde_json::json!(css),
            serde_json::json!(text)
        );
        self.eval(&script).await.map(|_| ())
    }

    /// Clicks the first element matching `css` that contains `text`.
    pub async fn click(&self, css: &str, text: &str) -> Result<(), Failure> {
        self.find(css, text).await?.click().await?;
        Ok(())
    }

    /// Chooses the option labelled `label` in `card` and waits until it shows as chosen. A click
    /// lands where the option was when it was sent; if the card moved under it at that moment
    /// (new entries arriving above it), the option is clicked again, at most three times.
    pub async fn choose(&self, card: &Element, label: &str) -> Result<(), Failure> {
        let option = Locator::XPath(&format!(".//label[contains(., '{label}')]"));
        for _ in 0..3 {
            card.find(option).await?.click().await?;
            let input = card.find(option).await?.find(Locator::Css("input")).await?;
            for _ in 0..10 {
                if input.prop("checked").await?.as_deref() == Some("true") {
                    return Ok(());
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        Err(format!("the option {label:?} did not show as chosen after three clicks").into())
    }

    /// Starts a session of `agent` from the window with `message`.
    pub async fn start_session(&self, agent: &str, message: &str) -> Result<(), Failure> {
        self.click("button", "New chat").await?;
        let picker = self.find(".new-chat-view select", "").await?;
        picker.select_by_value(agent).await?;
        self.find(".new-chat-view textarea", "").await?.send_keys(message).await?;
        self.click(".new-chat-view button[type=submit]", "Start").await
    }

    /// The id of the pending question whose card contains `text`.
    pub async fn pending_question_id(&self, text: &str) -> Result<String, Failure> {
        let card = self.find(".qcard-pending", text).await?;
        card.attr("data-request-id").await?.ok_or_else(|| "a card without its question id".into())
    }

    /// Waits until the window's place (its location hash) is `hash`.
    pub async fn wait_for_place(&self, hash: &str) -> Result<(), Failure> {
        let started = Instant::now();
        loop {
            let now = self.eval("return window.location.hash").await?;
            if now.as_str() == Some(hash) {
                return Ok(());
            }
            if started.elapsed() > PATIENCE {
                return Err(format!("the window is at {now} and not {hash:?} within {PATIENCE:?}").into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The page's whole text.
    pub async fn text(&self) -> Result<String, Failure> {
        Ok(self.client.find(Locator::Css("body")).await?.text().await?)
    }

    /// Runs `script` in the page and returns its value (promises are awaited).
    pub async fn eval(&self, script: &str) -> Result<serde_json::Value, Failure> {
        Ok(self.client.execute(script, vec![]).await?)
    }

    /// Calls the app's command `command` with `args`, as the window's own code does; its
    /// reply, or its `{kind, message}` as the error.
    pub async fn invoke(&self, command: &str, args: serde_json::Value) -> Result<serde_json::Value, Failure> {
        // Every window command goes through the one IPC command, with its name and arguments.
        let script = "return window.__TAURI_INTERNALS__\
                      .invoke('window_command', { command: arguments[0], args: arguments[1] })\
                      .then((reply) => ({ reply: reply ?? null }), (error) => ({ error }))";
        let outcome = self.client.execute(script, vec![json!(command), args]).await?;
        match outcome.get("error") {
            Some(error) => Err(format!("{command} failed: {error}").into()),
            None => Ok(outcome.get("reply").cloned().unwrap_or_default()),
        }
    }

    /// Whether the window is on screen: the app's process (found by its data folder) has a
    /// mapped X11 window titled "Beckon".
    pub fn window_on_screen(home: &Home) -> Result<bool, Failure> {
        Ok(App::window(home)? == Window::OnScreen)
    }

    /// Whether the window was never shown: GTK makes its X11 window the first time it is
    /// shown, so there is none at all — not even an unmapped one that a flash at start would
    /// have left.
    pub fn window_never_shown(home: &Home) -> Result<bool, Failure> {
        Ok(App::window(home)? == Window::NeverShown)
    }

    /// Where the app's window stands on the X server.
    fn window(home: &Home) -> Result<Window, Failure> {
        let windows = App::x11_windows(home)?;
        Ok(if windows.iter().any(|(_, viewable)| *viewable) {
            Window::OnScreen
        } else if windows.is_empty() {
            Window::NeverShown
        } else {
            Window::Hidden
        })
    }

    /// The app's X11 windows titled "Beckon" (the app's process found by its data folder):
    /// each one's id and whether it is mapped and viewable.
    fn x11_windows(home: &Home) -> Result<Vec<(String, bool)>, Failure> {
        let variable = format!("BECKON_DATA_DIR={}", home.data_dir().display());
        let app = crate::procs::find("beckon-desktop", &variable).ok_or("the app's process is not running")?;
        // No window manager runs: the app's top-level windows are the root window's children.
        let mut found = Vec::new();
        for id in top_level_windows(&x11(&["xwininfo", "-root", "-children"])?) {
            let Ok(pid) = x11(&["xprop", "-id", &id, "_NET_WM_PID"]) else { continue };
            if pid.rsplit(' ').next().map(str::trim) != Some(&app.pid.to_string()) {
                continue;
            }
            let Ok(info) = x11(&["xwininfo", "-id", &id]) else { continue };
            if info.contains("\"Beckon\"") {
                found.push((id, info.contains("Map State: IsViewable")));
            }
        }
        Ok(found)
    }

    /// Closes the window on screen as a person does with the window manager's close button:
    /// the X server takes the window a close request (`support/close_window.py`), and the app
    /// decides what closing means.
    pub fn close_window(home: &Home) -> Result<(), Failure> {
        let windows = App::x11_windows(home)?;
        let (id, _) = windows.iter().find(|(_, viewable)| *viewable).ok_or("the window is not on screen")?;
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("support/close_window.py");
        x11(&["/usr/bin/python3", &script.to_string_lossy(), id]).map(drop)
    }

    /// Follows the window the app made again (after it released the one this session drove):
    /// waits until the WebDriver session lists a window whose page answers, and drives that.
    pub async fn follow_window(&self) -> Result<(), Failure> {
        let started = Instant::now();
        loop {
            for handle in self.client.windows().await.unwrap_or_default().into_iter().rev() {
                if self.client.switch_to_window(handle).await.is_ok()
                    && self.eval("return document.readyState").await.is_ok()
                {
                    return Ok(());
                }
            }
            if started.elapsed() > PATIENCE {
                return Err("no window of the app answers WebDriver".into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The WebKit processes (web and network) the app's process runs now.
    pub fn webkit_processes(home: &Home) -> Result<Vec<String>, Failure> {
        let variable = format!("BECKON_DATA_DIR={}", home.data_dir().display());
        let app = crate::procs::find("beckon-desktop", &variable).ok_or("the app's process is not running")?;
        Ok(crate::procs::tree(&app).into_iter().map(|p| p.name).filter(|name| name.starts_with("WebKit")).collect())
    }

    /// Saves a screenshot of the window.
    pub async fn screenshot(&self, path: &Path) -> Result<(), Failure> {
        let png = self.client.screenshot().await?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, png)?;
        Ok(())
    }

    /// Closes the window's session and stops tauri-driver, waiting until it is gone.
    pub async fn quit(mut self) -> Result<(), Failure> {
        let _ = self.client.clone().close().await;
        terminate_driver(&self.driver);
        let started = Instant::now();
        while self.driver.try_wait()?.is_none() {
            if started.elapsed() > PATIENCE {
                let _ = self.driver.kill();
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // The next launch on the same data folder must find it free.
        released(&self.data_lock).await
    }
}

/// SIGTERM, so tauri-driver takes WebKitWebDriver and the app down with it (SIGKILL would
/// orphan them).
fn terminate_driver(driver: &Child) {
    let _ = Command::new("kill").arg("-TERM").arg(driver.id().to_string()).status();
}

/// Stops `driver` if it still runs: SIGTERM, then SIGKILL if it has not gone within [`PATIENCE`].
fn stop(driver: &mut Child) {
    if matches!(driver.try_wait(), Ok(None)) {
        terminate_driver(driver);
        let started = Instant::now();
        while matches!(driver.try_wait(), Ok(None)) && started.elapsed() < PATIENCE {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = driver.kill();
    }
}

/// How long the app may take to follow its driver out before it is told to quit.
const FOLLOW: Duration = Duration::from_secs(2);

/// Waits until no process holds the data folder's lock file at `path`. The app normally goes
/// with its driver; on a loaded machine the driver can be gone first, and the app, closed to
/// the tray, would run on (holding its data folder, and the CPU the next tests need): it is
/// then told to quit as a logout would tell it, by SIGTERM to the pid it wrote in the lock.
async fn released(path: &Path) -> Result<(), Failure> {
    let started = Instant::now();
    let mut told = false;
    while let Some(holder) = lock_holder(path)? {
        if started.elapsed() > PATIENCE {
            return Err(format!("{holder} still holds {} after it was told to quit", path.display()).into());
        }
        if !told && started.elapsed() > FOLLOW {
            told = true;
            terminate(&holder);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

/// SIGTERM to the process a lock file's `holder` line names ("Beckon desktop 0.1.0 (pid 42)").
fn terminate(holder: &str) {
    if let Some(pid) = holder.rsplit_once("(pid ").and_then(|(_, pid)| pid.strip_suffix(')')) {
        let _ = Command::new("kill").arg("-TERM").arg(pid).status();
    }
}

/// Who holds the lock file at `path` (as written in it), or `None` when it is free or absent.
fn lock_holder(path: &Path) -> Result<Option<String>, Failure> {
    let Ok(mut file) = File::open(path) else { return Ok(None) };
    match file.try_lock() {
        Ok(()) => Ok(None),
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            file.read_to_string(&mut holder)?;
            Ok(Some(holder.trim().to_owned()))
        }
        Err(TryLockError::Error(err)) => Err(err.into()),
    }
}

/// Where the app's window stands on the X server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Window {
    /// No X11 window at all: GTK creates it the first time it is shown.
    NeverShown,
    /// Created, and not on screen now (closed to the tray).
    Hidden,
    /// Mapped and viewable.
    OnScreen,
}

/// The window ids `xwininfo -root -children` lists.
/// Runs an X11 tool (`args[0]`) and returns what it printed.
fn x11(args: &[&str]) -> Result<String, Failure> {
    let output = Command::new(args[0]).args(&args[1..]).output()?;
    if !output.status.success() {
        return Err(format!("{args:?} failed: {}", String::from_utf8_lossy(&output.stderr)).into());
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

fn top_level_windows(listing: &str) -> Vec<String> {
    listing
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|id| id.starts_with("0x"))
        .map(str::to_owned)
        .collect()
}

impl Drop for App {
    /// A test that failed half-way still leaves nothing running.
    fn drop(&mut self) {
        stop(&mut self.driver);
        if let Ok(Some(holder)) = lock_holder(&self.data_lock) {
            terminate(&holder);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::top_level_windows;

    #[test]
    fn window_ids_are_read_from_xwininfo() {
        let listing = "\nxwininfo: Window id: 0x3ad (the root window) (has no name)\n\n  Root window id: 0x3ad (the root window) (has no name)\n  Parent window id: 0x0 (none)\n     3 children:\n     0x200028 \"beckon-desktop\": (\"beckon-desktop\" \"Beckon-desktop\")  16x16+0+0  +0+0\n     0x200003 \"Beckon\": (\"beckon-desktop\" \"Beckon-desktop\")  1100x760+90+20  +90+20\n     0x200001 (has no name): ()  10x10+-100+-100  +-100+-100\n";
        assert_eq!(top_level_windows(listing), ["0x200028", "0x200003", "0x200001"]);
    }
}
