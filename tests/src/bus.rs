//! A private D-Bus session bus for one test, so runs never see each other (the app registers a
//! single-instance name on it), with what a desktop session would put on it: a notification
//! daemon, and `gdbus` to call and signal as other programs would.

use std::process::{Child, Command, Stdio};

use crate::home::Home;
use crate::{Failure, Notifications, TrayWatcher};

/// A running `dbus-daemon --session` and the programs started on it.
#[derive(Debug)]
pub struct Bus {
    /// Its address, for `DBUS_SESSION_BUS_ADDRESS`.
    pub address: String,
    pid: u32,
    children: Vec<Child>,
}

impl Bus {
    /// Starts the daemon.
    pub fn start() -> Result<Bus, Failure> {
        let output = Command::new("dbus-daemon")
            .args(["--session", "--fork", "--print-address=1", "--print-pid=1"])
            .stderr(Stdio::null())
            .output()
            .map_err(|err| format!("cannot start dbus-daemon: {err}"))?;
        let text = String::from_utf8_lossy(&output.stdout);
        let mut lines = text.lines();
        let address = lines.next().ok_or("dbus-daemon printed no address")?.trim().to_owned();
        let pid = lines.next().ok_or("dbus-daemon printed no pid")?.trim().parse()?;
        Ok(Bus { address, pid, children: Vec::new() })
    }

    /// A command that runs on this bus.
    pub fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.env("DBUS_SESSION_BUS_ADDRESS", &self.address);
        command
    }

    /// Starts `dunst`, a real notification daemon, on this bus (under the test's display).
    pub fn start_notification_daemon(&mut self, home: &Home) -> Result<(), Failure> {
        let mut command = self.command("dunst");
        home.apply(&mut command);
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|err| format!("cannot start dunst: {err}"))?;
        self.children.push(child);
        Ok(())
    }

    /// Starts recording the Notifications interface.
    pub async fn record_notifications(&self) -> Result<Notifications, Failure> {
        Notifications::record(self).await
    }

    /// Starts a StatusNotifierWatcher, so the app's tray item registers where the test sees it.
    pub async fn watch_tray(&self) -> Result<TrayWatcher, Failure> {
        TrayWatcher::start(self).await
    }

    /// Emits the daemon's `ActionInvoked` signal for notification `id`, as a click on
    /// `action` would.
    pub fn invoke_action(&self, id: u32, action: &str) -> Result<(), Failure> {
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
