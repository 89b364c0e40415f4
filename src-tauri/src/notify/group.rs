//! Who asks and where: questions are counted into bursts, and reminded of, per agent and project.

use beckon_runtime::PendingNotice;

use super::text::cut;

/// The longest agent or project name in a burst's summary, in characters.
const NAME_MAX_CHARS: usize = 40;

/// Who asks and where: the asking agent, and the project folder its approval names (none for a
/// plain question, or an approval that names none).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Group {
    /// The asking agent ("claude-code").
    pub agent: String,
    /// The project folder, as the approval gives it ("/home/ada/shop").
    pub project: Option<String>,
}

impl Group {
    /// The group `notice` belongs to.
    pub fn of(notice: &PendingNotice) -> Group {
        Group {
            agent: notice.agent.clone(),
            project: notice.request.approval().and_then(|approval| approval.project.clone()),
        }
    }

    /// The project's folder name ("shop" for `/home/ada/shop`), if it names one.
    fn project_name(&self) -> Option<&str> {
        let project = self.project.as_deref()?.trim_end_matches(['/', '\\']);
        project.rsplit(['/', '\\']).next().filter(|name| !name.is_empty())
    }

    /// "claude-code in shop", or "deploy-bot (no project)".
    pub fn title(&self) -> String {
        let agent = cut(&self.agent, NAME_MAX_CHARS);
        match self.project_name() {
            Some(project) => format!("{agent} in {}", cut(project, NAME_MAX_CHARS)),
            None => format!("{agent} (no project)"),
        }
    }
}
