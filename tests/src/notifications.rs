//! What the app asked of the notification daemon, read from `dbus-monitor`: each `Notify` call
//! with the id the daemon gave it, and each `CloseNotification`.

use std::collections::HashMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::transcript::Transcript;
use crate::{Bus, Failure, eventually};

/// One `Notify` call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Notified {
    /// The id the daemon answered with (none until its reply is seen).
    pub id: Option<u32>,
    /// The app name sent.
    pub app: String,
    /// The id it replaces (0: none).
    pub replaces: u32,
    /// Its summary.
    pub summary: String,
    /// Its body.
    pub body: String,
    /// Its actions, as (key, label) pairs.
    pub actions: Vec<(String, String)>,
    /// When the monitor saw the call go by on the bus (its `time=`).
    pub seen_at: Option<SystemTime>,
}

/// A `dbus-monitor` recording the Notifications interface and method replies.
#[derive(Debug)]
pub struct Notifications {
    monitor: Transcript,
}

impl Notifications {
    /// Starts recording the Notifications interface on `bus`.
    pub async fn record(bus: &Bus) -> Result<Notifications, Failure> {
        let mut command = bus.command("dbus-monitor");
        command.args(["--session", "interface='org.freedesktop.Notifications'", "type='method_return'"]);
        let monitor = Transcript::start(command)?;
        // dbus-monitor prints the NameAcquired signal once its rules are in place.
        eventually("dbus-monitor ready", || monitor.lines().iter().any(|l| l.contains("NameAcquired")).then_some(()))
            .await?;
        Ok(Notifications { monitor })
    }

    /// The `Notify` calls and the ids closed so far.
    pub fn seen(&self) -> (Vec<Notified>, Vec<u32>) {
        parse_monitor_log(&self.monitor.lines())
    }

    /// Waits for a `Notify` call whose daemon id is known and which satisfies `matches`.
    pub async fn wait_for(&self, what: &str, matches: impl Fn(&Notified) -> bool) -> Result<Notified, Failure> {
        eventually(what, || self.seen().0.into_iter().find(|n| n.id.is_some() && matches(n))).await
    }

    /// Waits for a `CloseNotification` of `id`.
    pub async fn wait_for_close(&self, id: u32) -> Result<(), Failure> {
        eventually(&format!("CloseNotification({id})"), || self.seen().1.contains(&id).then_some(())).await
    }
}

/// One message in the monitor's text output.
#[derive(Debug, Default)]
struct Message {
    header: String,
    args: Vec<Arg>,
}

#[derive(Debug, Clone, PartialEq)]
enum Arg {
    Str(String),
    U32(u32),
    Array(Vec<Arg>),
    Other,
}

fn field<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.split([' ', ';']).find_map(|part| part.strip_prefix(name).and_then(|rest| rest.strip_prefix('=')))
}

/// Reads `dbus-monitor`'s default text output into the `Notify` calls (with the ids from their
/// replies) and the closed ids.
pub fn parse_monitor_log(lines: &[String]) -> (Vec<Notified>, Vec<u32>) {
    let messages = split_messages(lines);
    let mut ids: HashMap<(String, String), u32> = HashMap::new();
    for message in messages.iter().filter(|m| m.header.starts_with("method return")) {
        let key = (
            field(&message.header, "destination").unwrap_or_default().to_owned(),
            field(&message.header, "reply_serial").unwrap_or_default().to_owned(),
        );
        if let Some(Arg::U32(id)) = message.args.first() {
            ids.insert(key, *id);
        }
    }
    let mut notified = Vec::new();
    let mut closed = Vec::new();
    for message in messages.iter().filter(|m| m.header.starts_with("method call")) {
        match field(&message.header, "member") {
            Some("Notify") => {
                let key = (
                    field(&message.header, "sender").unwrap_or_default().to_owned(),
                    field(&message.header, "serial").unwrap_or_default().to_owned(),
                );
                let text = |i: usize| match message.args.get(i) {
                    Some(Arg::Str(s)) => s.clone(),
                    _ => String::new(),
                };
                let actions = match message.args.get(5) {
                    Some(Arg::Array(items)) => items
                        .chunks(2)
                        .filter_map(|pair| match pair {
                            [Arg::Str(key), Arg::Str(label)] => Some((key.clone(), label.clone())),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                notified.push(Notified {
                    id: ids.get(&key).copied(),
                    app: text(0),
                    replaces: match message.args.get(1) {
                        Some(Arg::U32(n)) => *n,
                        _ => 0,
                    },
                    summary: text(3),
                    body: text(4),
                    actions,
                    seen_at: field(&message.header, "time")
                        .and_then(|time| time.parse::<f64>().ok())
                        .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
                        .map(|after_epoch| UNIX_EPOCH + after_epoch),
                });
            }
            Some("CloseNotification") => {
                if let Some(Arg::U32(id)) = message.args.first() {
                    closed.push(*id);
                }
            }
            _ => {}
        }
    }
    (notified, closed)
}

fn split_messages(lines: &[String]) -> Vec<Message> {
    let mut messages: Vec<Message> = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let line = &lines[index];
        if !line.starts_with(' ') {
            messages.push(Message { header: line.clone(), args: Vec::new() });
            index += 1;
            continue;
        }
        let (arg, next) = read_arg(lines, index);
        if let Some(message) = messages.last_mut() {
            message.args.push(arg);
        }
        index = next;
    }
    messages
}

/// Reads the argument starting at `lines[index]`; returns it and the index after it.
fn read_arg(lines: &[String], index: usize) -> (Arg, usize) {
    let line = lines[index].trim_start();
    if let Some(rest) = line.strip_prefix("string \"") {
        // A string runs to its closing quote, which may be lines later.
        let mut text = rest.to_owned();
        let mut next = index + 1;
        while !text.ends_with('"') && next < lines.len() {
            text.push('\n');
            text.push_str(&lines[next]);
            next += 1;
        }
        return (Arg::Str(text.strip_suffix('"').unwrap_or(&text).to_owned()), next);
    }
    if let Some(rest) = line.strip_prefix("uint32 ") {
        return (rest.trim().parse().map(Arg::U32).unwrap_or(Arg::Other), index + 1);
    }
    if line.starts_with("array [") {
        if line.ends_with(']') {
            return (Arg::Array(Vec::new()), index + 1);
        }
        let mut items = Vec::new();
        let mut next = index + 1;
        while next < lines.len() && lines[next].trim() != "]" {
            let (item, after) = read_arg(lines, next);
            items.push(item);
            next = after;
        }
        return (Arg::Array(items), next + 1);
    }
    if line.ends_with('(') || line.ends_with('[') {
        // A struct or dict entry: skip to its matching close.
        let mut depth = 1;
        let mut next = index + 1;
        while next < lines.len() && depth > 0 {
            let inner = lines[next].trim();
            if inner.ends_with('(') || inner.ends_with('[') {
                depth += 1;
            } else if inner == ")" || inner == "]" {
                depth -= 1;
            }
            next += 1;
        }
        return (Arg::Other, next);
    }
    (Arg::Other, index + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = r#"signal time=1.0 sender=org.freedesktop.DBus -> destination=:1.9 serial=2 path=/org/freedesktop/DBus; interface=org.freedesktop.DBus; member=NameAcquired
   string ":1.9"
method call time=2.0 sender=:1.5 -> destination=org.freedesktop.Notifications serial=12 path=/org/freedesktop/Notifications; interface=org.freedesktop.Notifications; member=Notify
   string "Beckon"
   uint32 0
   string "/tmp/icon.png"
   string "deployer asks: Deploy"
   string "Ship it
today?"
   array [
      string "default"
      string "Open"
      string "answer:0"
      string "Yes"
   ]
   array [
      dict entry(
         string "urgency"
         variant             byte 1
      )
   ]
   int32 -1
method return time=2.1 sender=:1.3 -> destination=:1.7 serial=8 reply_serial=12
   uint32 99
method return time=2.1 sender=:1.3 -> destination=:1.5 serial=9 reply_serial=12
   uint32 4
method call time=3.0 sender=:1.5 -> destination=org.freedesktop.Notifications serial=14 path=/org/freedesktop/Notifications; interface=org.freedesktop.Notifications; member=CloseNotification
   uint32 4"#;

    #[test]
    fn notify_calls_get_their_reply_ids_and_closes_are_listed() {
        let lines: Vec<String> = LOG.lines().map(str::to_owned).collect();
        let (notified, closed) = parse_monitor_log(&lines);
        assert_eq!(
            notified,
            vec![Notified {
                id: Some(4),
                app: "Beckon".into(),
                replaces: 0,
                summary: "deployer asks: Deploy".into(),
                body: "Ship it\ntoday?".into(),
                actions: vec![("default".into(), "Open".into()), ("answer:0".into(), "Yes".into())],
                seen_at: Some(UNIX_EPOCH + Duration::from_secs(2)),
            }]
        );
        assert_eq!(closed, vec![4]);
    }

    #[test]
    fn a_call_without_its_reply_has_no_id_yet() {
        let lines: Vec<String> = LOG.lines().take(22).map(str::to_owned).collect();
        let (notified, closed) = parse_monitor_log(&lines);
        assert_eq!(notified.len(), 1);
        assert_eq!(notified[0].id, None);
        assert!(closed.is_empty());
    }
}
