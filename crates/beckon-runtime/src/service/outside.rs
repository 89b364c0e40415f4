//! Agents Beckon does not run (Claude Code and other external agents): their questions and
//! the notices that tell the person one of them waits.

use beckon_core::Notice;

use super::handle::Beckon;
use crate::error::{Error, Result};
use crate::external::{self, ExternalAsk, ExternalAsked};

impl Beckon {
    /// Puts an external agent's question to the person.
    pub async fn ask_external(&self, ask: ExternalAsk) -> Result<ExternalAsked> {
        external::ask(&self.rt, ask).await
    }

    /// An agent outside Beckon waits for its person where Beckon cannot answer for it (Claude
    /// Code idle at its prompt): the person is told, replacing an earlier notice under `key`.
    pub fn post_notice(&self, key: &str, agent: String, message: String, project: Option<String>) -> Result<Notice> {
        let notice = Notice::new(key, agent, message, project, self.rt.clock.now_ms()).map_err(Error::InvalidInput)?;
        self.notices.post(notice.clone());
        Ok(notice)
    }

    /// The agent under `key` went on: its notice goes away. Says whether there was one.
    pub fn clear_notice(&self, key: &str) -> bool {
        self.notices.clear(key)
    }

    /// The notices shown now, oldest first.
    pub fn notices(&self) -> Vec<Notice> {
        self.notices.list()
    }
}
