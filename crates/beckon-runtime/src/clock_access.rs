//! The clock a running Beckon reads time on, for the parts that run beside it (channels, the
//! gateway): they wait on the same clock as the runtime's own workers, so a test's
//! [`ManualClock`](crate::ManualClock) moves them too.

use std::sync::Arc;

use crate::clock::Clock;
use crate::service::Beckon;

impl Beckon {
    /// The clock the runtime started with (the system's, or a test's): where the time is read
    /// and waited for.
    pub fn clock(&self) -> Arc<dyn Clock> {
        self.rt.clock.clone()
    }

    /// The time now (Unix ms), from the clock the runtime started with.
    pub fn now_ms(&self) -> i64 {
        self.rt.clock.now_ms()
    }
}
