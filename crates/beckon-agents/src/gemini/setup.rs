//! Connecting Gemini CLI to Beckon in one scope's `settings.json`, or taking that out: read as
//! JSON, edited by [`super::settings`], written atomically over the file's own text (Gemini
//! writes two spaces and no final newline), so taking Beckon out of a file it was the only
//! change to gives back that file exactly.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::settings;
use crate::agent::Agent;
use crate::connect::{Change, Connection, Place, Report, Scope, State};
use crate::invocation::Invocation;
use crate::json_file::{edit, read_json};
use crate::{Error, Result};

/// Gemini's settings in one scope, and how they should run `beckon`.
#[derive(Debug, Clone)]
pub struct Setup {
    scope: Scope,
    file: PathBuf,
    beckon: Invocation,
}

impl Setup {
    /// The file of `scope` at `place`: `$GEMINI_CLI_HOME/.gemini/settings.json` (Gemini reads
    /// that variable as the home its `.gemini` folder is in), else `~/.gemini/settings.json`,
    /// for the user; `.gemini/settings.json` in the project.
    pub fn at(scope: Scope, place: &Place, beckon: &Invocation) -> Result<Setup> {
        let file = match scope {
            Scope::User => {
                let home = place.var("GEMINI_CLI_HOME").map(Path::to_path_buf).unwrap_or_else(|| place.home.clone());
                let home = if home.is_absolute() { home } else { place.project.join(home) };
                home.join(".gemini").join("settings.json")
            }
            Scope::Project => place.project.join(".gemini").join("settings.json"),
            Scope::Local => {
                return Err(Error::NoSuchScope { agent: "gemini", scope: "local", offered: "user or project" });
            }
        };
        Ok(Setup { scope, file, beckon: beckon.clone() })
    }
}

impl Connection for Setup {
    fn agent(&self) -> Agent {
        Agent::Gemini
    }

    fn scope(&self) -> Scope {
        self.scope
    }

    fn main_file(&self) -> &Path {
        &self.file
    }

    fn state(&self) -> Result<State> {
        Ok(settings::state(&read_json(&self.file)?.unwrap_or(json!({})), &self.beckon))
    }

    fn apply(&self, remove: bool, dry_run: bool) -> Result<Report> {
        let changed = edit(&self.file, dry_run, |value| {
            if remove { settings::remove(value) } else { settings::add(value, &self.beckon) }
        })?;
        Ok(Report {
            changes: vec![Change {
                place: self.file.display().to_string(),
                what: "the MCP server \"beckon\" (trusted) and hooks that show Gemini's permission prompts as notices",
                changed,
            }],
        })
    }

    fn next_step(&self) -> String {
        let mut step = String::from(
            "Gemini CLI lets no other program approve its tool calls: its permission prompts now reach Beckon as \
             notices naming the command, and you answer them in Gemini's terminal. Its questions to you through \
             Beckon's ask_user_question are answered in Beckon. Gemini runs hooks only in folders it trusts; \
             restart running Gemini sessions to pick this up.",
        );
        if self.scope == Scope::Project {
            step.push_str(
                " Gemini reads a project's .gemini/settings.json only once you trust the folder, and warns once \
                 about the hooks it finds there.",
            );
        }
        step
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn beckon() -> Invocation {
        Invocation::new("/usr/bin/beckon")
    }

    fn place(dir: &Path) -> Place {
        Place::new(&dir.join("home"), &dir.join("shop"))
    }

    #[test]
    fn the_user_file_follows_gemini_cli_home_and_the_project_file_is_in_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let user = Setup::at(Scope::User, &place(dir.path()), &beckon()).unwrap();
        assert_eq!(user.main_file(), dir.path().join("home/.gemini/settings.json"));
        let moved = place(dir.path()).with_var("GEMINI_CLI_HOME", &dir.path().join("elsewhere"));
        let user = Setup::at(Scope::User, &moved, &beckon()).unwrap();
        assert_eq!(user.main_file(), dir.path().join("elsewhere/.gemini/settings.json"));
        let relative = place(dir.path()).with_var("GEMINI_CLI_HOME", Path::new("cfg"));
        let user = Setup::at(Scope::User, &relative, &beckon()).unwrap();
        assert_eq!(user.main_file(), dir.path().join("shop/cfg/.gemini/settings.json"));
        let project = Setup::at(Scope::Project, &place(dir.path()), &beckon()).unwrap();
        assert_eq!(project.main_file(), dir.path().join("shop/.gemini/settings.json"));
        assert!(matches!(Setup::at(Scope::Local, &place(dir.path()), &beckon()), Err(Error::NoSuchScope { .. })));
    }

    #[test]
    fn removing_gives_back_the_file_as_gemini_wrote_it() {
        let dir = tempfile::tempdir().unwrap();
        let setup = Setup::at(Scope::User, &place(dir.path()), &beckon()).unwrap();
        // Gemini writes its settings with two spaces and no final newline.
        let original = "{\n  \"ui\": {\n    \"theme\": \"GitHub\"\n  },\n  \"tools\": {\n    \"exclude\": []\n  }\n}";
        std::fs::create_dir_all(setup.main_file().parent().unwrap()).unwrap();
        std::fs::write(setup.main_file(), original).unwrap();
        assert_eq!(setup.state().unwrap(), State::NotConnected);
        assert!(setup.apply(false, true).unwrap().changes[0].changed);
        assert_eq!(std::fs::read_to_string(setup.main_file()).unwrap(), original, "a dry run writes nothing");
        setup.apply(false, false).unwrap();
        assert_eq!(setup.state().unwrap(), State::Connected);
        assert!(!setup.apply(false, false).unwrap().changes[0].changed);
        setup.apply(true, false).unwrap();
        assert_eq!(std::fs::read_to_string(setup.main_file()).unwrap(), original);
        assert_eq!(setup.state().unwrap(), State::NotConnected);
    }

    #[test]
    fn a_new_file_ends_with_a_newline_goes_again_and_a_broken_one_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let setup = Setup::at(Scope::Project, &place(dir.path()), &beckon()).unwrap();
        setup.apply(false, false).unwrap();
        assert!(std::fs::read_to_string(setup.main_file()).unwrap().ends_with("}\n"));
        setup.apply(true, false).unwrap();
        assert!(!setup.main_file().exists(), "the file setup made is gone again");
        // Gemini allows comments in its settings; Beckon does not rewrite such a file.
        std::fs::write(setup.main_file(), "{\n  // mine\n  \"ui\": {}\n}").unwrap();
        assert!(matches!(setup.apply(false, false), Err(Error::NotJson { .. })));
        assert_eq!(std::fs::read_to_string(setup.main_file()).unwrap(), "{\n  // mine\n  \"ui\": {}\n}");
    }
}
