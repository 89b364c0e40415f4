//! The channels against fake Slack and Telegram servers on loopback: their protocols, pairing,
//! people on a team server, what is logged, and the README's picture of a Slack message. One
//! test binary; each suite is a module.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;

mod channels;
mod slack_person;
mod slack_picture;
mod slack_protocol;
mod telegram_pairing;
mod telegram_pairing_log;
mod telegram_people;
mod telegram_protocol;
