//! The app started on its own, as people run it: no WebDriver session holds its WebView, so
//! what it does with a closed window is what it does on a desktop. What it does is read from
//! its log.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use beckon_e2e::procs::{self, Proc};
use beckon_e2e::{App, Bus, Failure, Home, PATIENCE, Transcript, eventually};

use crate::launch::ANY_GATEWAY_PORT;
use crate::log;

/// A running app, its home and its bus. (Fields drop in order: the app goes first.)
pub struct PlainApp {
    transcript: Transcript,
    pub home: Home,
    pub bus: Bus,
    program: PathBuf,
}

impl PlainApp {
    /// Starts `program` in `home` on `bus` with `variables`, logging at `info`, and waits until
    /// its first page ran and its window is on screen.
    pub async fn start(program: &Path, home: Home, bus: Bus, variables: &[(&str, &str)]) -> Result<PlainApp, Failure> {
        let mut command = bus.command(&program.to_string_lossy());
        home.apply(&mut command);
        command.env("BECKON_LOG", "info").env(ANY_GATEWAY_PORT.0, ANY_GATEWAY_PORT.1).envs(variables.iter().copied());
        let transcript = Transcript::start(command)?;
        let app = PlainApp { transcript, home, bus, program: program.to_owned() };
        app.wait_for(log::PAGE_RAN, 1).await?;
        eventually("the window on screen", || App::window_on_screen(&app.home).ok()?.then_some(())).await?;
        Ok(app)
    }

    /// The lines the app has logged so far.
    pub fn lines(&self) -> Vec<String> {
        self.transcript.lines()
    }

    /// How many lines so far hold `text`.
    pub fn count(&self, text: &str) -> usize {
        log::count_holding(&self.lines(), text)
    }

    /// Waits until `count` lines hold `text`; the last of them.
    pub async fn wait_for(&self, text: &str, count: usize) -> Result<String, Failure> {
        eventually(&format!("{count} log lines saying {text:?}"), || {
            log::nth_holding(&self.lines(), text, count.checked_sub(1)?)
        })
        .await
    }

    /// The app's process.
    pub fn process(&self) -> Result<Proc, Failure> {
        let variable = format!("BECKON_DATA_DIR={}", self.home.data_dir().display());
        procs::find("beckon-desktop", &variable).ok_or_else(|| "the app's process is not running".into())
    }

    /// Launches the binary a second time with `link`, as a desktop does for a `beckon://` link,
    /// and waits until that launch exits.
    pub fn open_link(&self, link: &str) -> Result<ExitStatus, Failure> {
        let mut command = self.bus.command(&self.program.to_string_lossy());
        self.home.apply(&mut command);
        Ok(command.arg(link).stdout(Stdio::null()).stderr(Stdio::null()).status()?)
    }

    /// Asks the app to quit as a logout does (SIGTERM) and waits until it is gone.
    pub async fn quit(self) -> Result<(), Failure> {
        let process = self.process()?;
        Command::new("kill").arg("-TERM").arg(process.pid.to_string()).status()?;
        let started = Instant::now();
        while self.process().is_ok() {
            if started.elapsed() > PATIENCE {
                return Err("the app did not quit when told to".into());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(())
    }
}
