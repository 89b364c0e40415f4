//! Progress of long set-up work on stderr: on a terminal one line rewritten in place (cleared
//! first, so a shorter line leaves nothing behind); elsewhere (a log, CI) a line at each
//! quarter, so the output stays readable.

use std::io::{IsTerminal, Write};

/// How far a piece of work has come.
#[derive(Debug)]
pub struct Progress {
    what: &'static str,
    total: usize,
    in_place: bool,
    quarters_told: usize,
}

/// The text of one progress line.
pub fn line(done: usize, total: usize, what: &str) -> String {
    format!("  {done} of {total} {what}")
}

impl Progress {
    /// Work of `total` items called `what` ("sessions waiting").
    pub fn new(what: &'static str, total: usize) -> Progress {
        Progress { what, total, in_place: std::io::stderr().is_terminal(), quarters_told: 0 }
    }

    /// `done` items are done.
    pub fn update(&mut self, done: usize) {
        let mut err = std::io::stderr().lock();
        if self.in_place {
            // Carriage return, then clear the line: the new text replaces the old.
            let _ = write!(err, "\r\x1b[2K{}", line(done, self.total, self.what));
            let _ = err.flush();
            return;
        }
        let quarters = (done.min(self.total) * 4).checked_div(self.total).unwrap_or(4);
        if quarters > self.quarters_told {
            self.quarters_told = quarters;
            let _ = writeln!(err, "{}", line(done, self.total, self.what));
        }
    }

    /// The work is done: the line is ended.
    pub fn finish(self) {
        if self.in_place {
            eprintln!();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_says_how_many_of_how_many() {
        assert_eq!(line(20_000, 1_000_000, "questions"), "  20000 of 1000000 questions");
    }

    #[test]
    fn off_a_terminal_each_quarter_is_told_once() {
        let mut progress = Progress { what: "x", total: 100, in_place: false, quarters_told: 0 };
        for done in [10, 25, 30, 50, 100, 100] {
            progress.update(done);
        }
        assert_eq!(progress.quarters_told, 4);
    }
}
