//! A private D-Bus session bus for one test, so runs never see each other (the app registers a
//! single-instance name on it), with what a desktop session would put on it: a notification
//! daemon, and `gdbus` to call and signal as other programs would.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::home::Home;
use crate::{Failure, PATIENCE};

/// A running `dbus-daemon --session` and the programs started on it.
#[derive(Debug)]
pub struct Bus {
    /// Its address, for `DBUS_SESSION_BUS_ADDRESS`.
    pub address: String,
    pid: u32,
    children: Vec<Child>,
    /// Where the daemon's menu program reads which action to choose (see
    /// [`Bus::daemon_action`]).
    choice: Option<PathBuf>,
    /// The notification daemon, when this bus runs one.
    daemon: Option<Daemon>,
}

/// How the notification daemon was started, to start it again, and where it writes.
#[derive(Debug)]
struct Daemon {
    env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    log: PathBuf,
    /// Its index in `children`.
    child: usize,
}

impl Bus {
    /// Starts the daemon.
    pub fn start() -> Result<Bus, Failure> {
        let mut command = Command::new("dbus-daemon");
        command.arg("--session");
        Bus::fork(command)
    }

    /// Starts a daemon that starts no service: until a notification daemon is started on it, a
    /// call to `org.freedesktop.Notifications` fails, as on a desktop without one (the standard
    /// session configuration would start dunst from its service file at the first call).
    pub fn start_without_services(home: &Home) -> Result<Bus, Failure> {
        let config = home.path().join("bus.conf");
        std::fs::write(
            &config,
            concat!(
                "<busconfig><type>session</type><listen>unix:tmpdir=/tmp</listen><auth>EXTERNAL</auth>",
                "<policy context=\"default\"><allow send_destination=\"*\" eavesdrop=\"true\"/>",
                "<allow eavesdrop=\"true\"/><allow own=\"*\"/></policy></busconfig>\n"
            ),
        )?;
        let mut command = Command::new("dbus-daemon");
        command.arg(format!("--config-file={}", config.display()));
        Bus::fork(command)
    }

    /// Runs `command` (a `dbus-daemon` with its configuration) in the background and reads
    /// where it listens.
    fn fork(mut command: Command) -> Result<Bus, Failure> {
        let output = command
            .args(["--fork", "--print-address=1", "--print-pid=1"])
            .stderr(Stdio::null())
            .output()
            .map_err(|err| format!("cannot start dbus-daemon: {err}"))?;
        let text = String::from_utf8_lossy(&output.stdout);
        let mut lines = text.lines();
        let address = lines.next().ok_or("dbus-daemon printed no address")?.trim().to_owned();
        let pid = lines.next().ok_or("dbus-daemon printed no pid")?.trim().parse()?;
        Ok(Bus { address, pid, children: Vec::new(), choice: None, daemon: None })
    }

    /// A command that runs on this bus.
    pub fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.env("DBUS_SESSION_BUS_ADDRESS", &self.address);
        command
    }

    /// Starts `dunst`, a real notification daemon, on this bus (under the test's display), and
    /// waits until it owns its name. Its context menu runs a program that picks the action
    /// [`Bus::daemon_action`] names, as a person choosing a button would.
    ///
    /// Waiting matters: an app's first call to a name nobody owns yet makes a standard session
    /// bus start the system's dunst from its service file — with the system's configuration
    /// (`markup = full`), not this one — and the two race for the name.
    pub async fn start_notification_daemon(&mut self, home: &Home) -> Result<(), Failure> {
        let config = home.path().join(".config/dunst");
        std::fs::create_dir_all(&config)?;
        let choice = home.path().join("dunst-choice");
        let picker = home.path().join("dunst-pick");
        // dunst lists each action as `#<label> (<summary>) [<id>,<key>]`.
        std::fs::write(&picker, format!("#!/bin/sh\nexec grep -m1 -F -e \"$(cat '{}')\"\n", choice.display()))?;
        std::fs::set_permissions(&picker, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
        // Bodies are shown as they are (no `body-markup`), so tests read commands verbatim.
        std::fs::write(
            config.join("dunstrc"),
            format!("[global]\n    markup = no\n    dmenu = {}\n", picker.display()),
        )?;
        self.choice = Some(choice);
        let mut command = Command::new("dunst");
        home.apply(&mut command);
        let env = command.get_envs().filter_map(|(key, value)| Some((key.to_owned(), value?.to_owned()))).collect();
        self.daemon = Some(Daemon { env, log: home.path().join("dunst.log"), child: self.children.len() });
        let child = self.spawn_daemon()?;
        self.children.push(child);
        self.notification_daemon_ready().await
    }

    fn spawn_daemon(&self) -> Result<Child, Failure> {
        let daemon = self.daemon.as_ref().ok_or("no notification daemon was asked for")?;
        let mut command = self.command("dunst");
        command.envs(daemon.env.iter().map(|(key, value)| (key, value)));
        Ok(command
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&daemon.log)?)
            .spawn()
            .map_err(|err| format!("cannot start dunst: {err}"))?)
    }

    /// Waits until the notification daemon owns its name on this bus (what an app starting now
    /// needs for a notification shown at once). A daemon that exited before that (as dunst now
    /// and then does on a loaded machine, saying why in its log) is started again, twice at most.
    async fn notification_daemon_ready(&mut self) -> Result<(), Failure> {
        let started = Instant::now();
        let mut restarts = 0;
        loop {
            let owned = self.call(
                "org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus.NameHasOwner",
                &["org.freedesktop.Notifications"],
            );
            if owned.is_ok_and(|owned| owned.contains("true")) {
                return Ok(());
            }
            let daemon = self.daemon.as_ref().ok_or("no notification daemon was started on this bus")?;
            let said = || std::fs::read_to_string(&daemon.log).unwrap_or_default().trim().to_owned();
            let exited = self.children.get_mut(daemon.child).and_then(|child| child.try_wait().ok().flatten());
            if let Some(status) = exited {
                if restarts == 2 {
                    return Err(format!("dunst exited ({status}) three times; it said: {:?}", said()).into());
                }
                eprintln!("dunst exited ({status}) before it was on the bus, starting it again; it said: {:?}", said());
                restarts += 1;
                let child = self.spawn_daemon()?;
                let index = daemon.child;
                self.children[index] = child;
            } else if started.elapsed() > PATIENCE {
                return Err(
                    format!("dunst on the bus: not within {} s; it said: {:?}", PATIENCE.as_secs(), said()).into()
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Has the notification daemon invoke `action` of notification `id`, as a person choosing it
    /// would: dunst's context menu, answered by the program set up with the daemon.
    pub fn daemon_action(&self, id: u32, action: &str) -> Result<(), Failure> {
        let choice = self.choice.as_ref().ok_or("no notification daemon was started")?;
        std::fs::write(choice, format!("[{id},{action}]"))?;
        let status = self.command("dunstctl").arg("context").status()?;
        if !status.success() {
            return Err(format!("dunstctl context failed: {status}").into());
        }
        Ok(())
    }

    /// Emits `ActionInvoked` for notification `id` from a connection of its own, as any other
    /// program on the bus could: a forgery, not the daemon's click.
    pub fn forge_action(&self, id: u32, action: &str) -> Result<(), Failure> {
        let status = self
            .command("gdbus")
            .args(["emit", "--session", "--object-path", "/org/freedesktop/Notifications", "--signal"])
            .arg("org.freedesktop.Notifications.ActionInvoked")
            .arg(format!("uint32 {id}"))
            .arg(action)
            .status()?;
        if !status.success() {
            return Err(format!("gdbus emit failed: {status}").into());
        }
        Ok(())
    }

    /// How many connections the process that owns a bus name starting with `name` has on the
    /// bus.
    pub fn connections_of_owner(&self, name: &str) -> Result<usize, Failure> {
        let names =
            self.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames", &[])?;
        let names: Vec<&str> = names.split('\'').skip(1).step_by(2).collect();
        let pid_of = |bus_name: &str| -> Result<String, Failure> {
            let reply = self.call(
                "org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus.GetConnectionUnixProcessID",
                &[bus_name],
            )?;
            Ok(reply.trim().to_owned())
        };
        let owner =
            names.iter().find(|n| n.starts_with(name)).ok_or_else(|| format!("no bus name starts with {name}"))?;
        let pid = pid_of(owner)?;
        let mut count = 0;
        for unique in names.iter().filter(|n| n.starts_with(':')) {
            if pid_of(unique).is_ok_and(|p| p == pid) {
                count += 1;
            }
        }
        Ok(count)
    }

    /// Calls `method` on `dest` at `path` with `args` (GVariant text) and returns the reply.
    pub fn call(&self, dest: &str, path: &str, method: &str, args: &[&str]) -> Result<String, Failure> {
        let output = self
            .command("gdbus")
            .args(["call", "--session", "--dest", dest, "--object-path", path, "--method", method, "--"])
            .args(args)
            .output()?;
        if !output.status.success() {
            return Err(format!("gdbus call {method} failed: {}", String::from_utf8_lossy(&output.stderr)).into());
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

impl Drop for Bus {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = Command::new("kill").arg(self.pid.to_string()).status();
    }
}
