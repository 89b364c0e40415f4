//! The app's tray item as a desktop panel sees it: a StatusNotifierWatcher on the test bus
//! (`support/sni_watcher.py`) takes the item's registration, and `gdbus` reads its properties
//! and menu and clicks menu entries.

use std::path::Path;

use crate::transcript::Transcript;
use crate::{Bus, Failure, eventually};

/// A running StatusNotifierWatcher.
#[derive(Debug)]
pub struct TrayWatcher {
    watcher: Transcript,
}

/// A registered tray item.
#[derive(Debug, Clone)]
pub struct TrayItem {
    /// The bus name that registered it.
    pub name: String,
    /// Its object path.
    pub path: String,
}

/// One entry of the item's menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MenuEntry {
    /// Its dbusmenu id.
    pub id: i32,
    /// Its label (empty for separators).
    pub label: String,
}

impl TrayWatcher {
    /// Starts a StatusNotifierWatcher on `bus`, so the app's tray item registers where the test
    /// sees it.
    pub async fn start(bus: &Bus) -> Result<TrayWatcher, Failure> {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("support/sni_watcher.py");
        // The system Python: it has the GObject bindings.
        let mut command = bus.command("/usr/bin/python3");
        command.arg(script);
        let watcher = Transcript::start(command)?;
        eventually("the StatusNotifierWatcher owns its name", || {
            watcher.lines().iter().any(|line| line == "READY").then_some(())
        })
        .await?;
        Ok(TrayWatcher { watcher })
    }

    /// Waits for the first item to register.
    pub async fn item(&self) -> Result<TrayItem, Failure> {
        eventually("a tray item registers", || {
            self.watcher.lines().iter().find_map(|line| {
                let mut parts = line.strip_prefix("ITEM ")?.split(' ');
                Some(TrayItem { name: parts.next()?.to_owned(), path: parts.next()?.to_owned() })
            })
        })
        .await
    }
}

impl TrayItem {
    /// All of its `org.kde.StatusNotifierItem` properties, as gdbus prints them.
    pub fn properties(&self, bus: &Bus) -> Result<String, Failure> {
        bus.call(&self.name, &self.path, "org.freedesktop.DBus.Properties.GetAll", &["org.kde.StatusNotifierItem"])
    }

    /// The label panels show next to the icon (`XAyatanaLabel`, what the app's title sets).
    pub fn label(&self, bus: &Bus) -> Result<String, Failure> {
        let properties = self.properties(bus)?;
        property(&properties, "XAyatanaLabel").ok_or_else(|| format!("no XAyatanaLabel in {properties}").into())
    }

    /// Its menu's top-level entries.
    pub fn menu(&self, bus: &Bus) -> Result<Vec<MenuEntry>, Failure> {
        let path = self.menu_path(bus)?;
        let layout = bus.call(&self.name, &path, "com.canonical.dbusmenu.GetLayout", &["0", "-1", "[]"])?;
        Ok(parse_menu_layout(&layout))
    }

    /// Clicks menu entry `id`.
    pub fn click(&self, bus: &Bus, id: i32) -> Result<(), Failure> {
        let path = self.menu_path(bus)?;
        bus.call(
            &self.name,
            &path,
            "com.canonical.dbusmenu.Event",
            &[&id.to_string(), "clicked", "<int32 0>", "uint32 0"],
        )?;
        Ok(())
    }

    fn menu_path(&self, bus: &Bus) -> Result<String, Failure> {
        let properties = self.properties(bus)?;
        property(&properties, "Menu").ok_or_else(|| format!("no Menu in {properties}").into())
    }
}

/// The value of string (or object path) property `name` in gdbus's printed dictionary.
fn property(text: &str, name: &str) -> Option<String> {
    let start = text.find(&format!("'{name}': <"))? + name.len() + 5;
    let rest = text[start..].strip_prefix("objectpath ").unwrap_or(&text[start..]);
    quoted(rest)
}

/// The GVariant string literal at the start of `text` (single or double quoted).
fn quoted(text: &str) -> Option<String> {
    let mut chars = text.chars();
    let quote = chars.next().filter(|c| *c == '\'' || *c == '"')?;
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            c if c == quote => return Some(out),
            c => out.push(c),
        }
    }
    None
}

/// Reads the top-level entries of a `GetLayout` reply as gdbus prints it.
pub fn parse_menu_layout(layout: &str) -> Vec<MenuEntry> {
    layout
        .split("<(")
        .skip(1)
        .filter_map(|chunk| {
            let id = chunk.split(',').next()?.trim().parse().ok()?;
            let properties = chunk.split("}, ").next().unwrap_or(chunk);
            Some(MenuEntry { id, label: property(properties, "label").unwrap_or_default() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_paths_are_read_from_properties() {
        let text = "({'Id': <'tray icon 1'>, 'Menu': <objectpath '/org/ayatana/NotificationItem/x/Menu'>, 'XAyatanaLabel': <\"1 agent's waiting\">},)";
        assert_eq!(property(text, "Menu").as_deref(), Some("/org/ayatana/NotificationItem/x/Menu"));
        assert_eq!(property(text, "XAyatanaLabel").as_deref(), Some("1 agent's waiting"));
        assert_eq!(property(text, "Title"), None);
    }

    #[test]
    fn menu_entries_keep_their_ids_and_labels() {
        let layout = "(uint32 7, (0, {'children-display': <'submenu'>}, [<(3, {'label': <'poet: Style'>, 'enabled': <true>}, @av [])>, <(4, {'type': <'separator'>}, @av [])>, <(5, {'label': <'Open Inbox'>}, @av [])>]))";
        assert_eq!(
            parse_menu_layout(layout),
            vec![
                MenuEntry { id: 3, label: "poet: Style".into() },
                MenuEntry { id: 4, label: String::new() },
                MenuEntry { id: 5, label: "Open Inbox".into() },
            ]
        );
    }
}
