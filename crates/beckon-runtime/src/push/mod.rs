//! Web Push on a team server: a signed-in person's browsers (devices) get a push for each
//! question addressed to them, with the page closed, through their browser's push service —
//! RFC 8030 delivery, the message encrypted for the browser alone (RFC 8291 `aes128gcm`: the
//! push service sees ciphertext), signed with the server's VAPID key (RFC 8292).
//!
//! A device is kept for the sign-in it was made in. Delivery is one more outbox consumer:
//! pushes are recorded before they are sent and marked once the push service answered, so a
//! replica killed mid-send leaves them due for the next holder of the work; at most one push
//! per device and question is recorded as sent. What a person's browser adds and removes goes
//! through [`crate::PushDevices`].

mod delivery;
mod message;
mod subscription;
mod vapid;

pub(crate) use delivery::{PushWorker, run};
pub(crate) use subscription::device;
pub(crate) use vapid::Vapid;
