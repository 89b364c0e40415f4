//! Channels' state kept in Beckon's own store, beside its settings, judged by the runtime's clock.

use beckon_runtime::{Beckon, Sleep};

use crate::error::Result;
use crate::state::ChannelState;

impl ChannelState for Beckon {
    async fn get(&self, key: &str) -> Result<Option<String>> {
        Ok(self.channel_outbox().state(key).await?)
    }

    async fn set(&self, key: &str, value: &str) -> Result<()> {
        Ok(self.channel_outbox().set_state(key, value).await?)
    }

    fn now_ms(&self) -> i64 {
        Beckon::now_ms(self)
    }

    fn sleep_until(&self, at_ms: i64) -> Sleep {
        self.clock().sleep_until(at_ms)
    }

    async fn is_paired_account(&self, channel: &str, account: &str) -> Result<bool> {
        Ok(self.pairings().person(channel, account).await?.is_some())
    }
}
