//! Where an agent's configuration is kept: for the person, for a project, or for the person in
//! one project.

/// Where an agent's configuration is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every project of this user.
    User,
    /// One project, for everyone on it (files in the repository).
    Project,
    /// One project, for this user only (Claude Code only).
    Local,
}

impl Scope {
    /// The scope's name, as `--scope` takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Local => "local",
        }
    }
}
