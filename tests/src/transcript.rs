//! A helper process whose output lines are collected as it prints them.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use crate::Failure;

/// A running process and every line it has printed so far.
#[derive(Debug)]
pub struct Transcript {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Transcript {
    /// Starts `command`, collecting its standard output.
    pub fn start(mut command: Command) -> Result<Transcript, Failure> {
        let mut child = command.stdout(Stdio::piped()).stderr(Stdio::null()).spawn()?;
        let stdout = child.stdout.take().ok_or("no standard output")?;
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(mut lines) = sink.lock() {
                    lines.push(line);
                }
            }
        });
        Ok(Transcript { child, lines })
    }

    /// The lines printed so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().map(|lines| lines.clone()).unwrap_or_default()
    }
}

impl Drop for Transcript {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
