//! The tray icon: its title gives the number of agents waiting, its icon shows whether
//! something waits, and its menu lists the newest questions, "Open Inbox", "Do not disturb"
//! and "Quit". Closing the window keeps Beckon here.

use tauri::image::Image;
use tauri::menu::{CheckMenuItem, Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::{TrayIcon, TrayIconBuilder};
use tauri::{AppHandle, Manager};

use crate::dto::NavTarget;
use crate::tray_model::{TrayQuestion, model};

const TRAY_ID: &str = "beckon";
const IDLE_ICON: &[u8] = include_bytes!("../../icons/tray.png");
const WAITING_ICON: &[u8] = include_bytes!("../../icons/tray-waiting.png");

fn menu(app: &AppHandle, pending: &[TrayQuestion], dnd: bool) -> tauri::Result<Menu<tauri::Wry>> {
    let tray = model(pending);
    let menu = Menu::new(app)?;
    if tray.entries.is_empty() {
        menu.append(&MenuItem::with_id(app, "none", "Nothing is waiting", false, None::<&str>)?)?;
    }
    for (id, label) in &tray.entries {
        menu.append(&MenuItem::with_id(app, format!("question:{id}"), label, true, None::<&str>)?)?;
    }
    if tray.more > 0 {
        menu.append(&MenuItem::with_id(
            app,
            "more",
            format!("…and {} more in the inbox", tray.more),
            true,
            None::<&str>,
        )?)?;
    }
    menu.append(&PredefinedMenuItem::separator(app)?)?;
    menu.append(&MenuItem::with_id(app, "inbox", "Open Inbox", true, None::<&str>)?)?;
    menu.append(&CheckMenuItem::with_id(app, "dnd", "Do not disturb", true, dnd, None::<&str>)?)?;
    menu.append(&PredefinedMenuItem::separator(app)?)?;
    menu.append(&MenuItem::with_id(app, "quit", "Quit Beckon", true, None::<&str>)?)?;
    Ok(menu)
}

/// Builds the tray icon.
pub fn build(app: &AppHandle, dnd: bool) -> tauri::Result<TrayIcon> {
    TrayIconBuilder::with_id(TRAY_ID)
        .icon(Image::from_bytes(IDLE_ICON)?)
        .title("Beckon")
        .tooltip("Beckon")
        .menu(&menu(app, &[], dnd)?)
        .show_menu_on_left_click(true)
        .on_menu_event(|app, event| on_menu(app, event.id().as_ref()))
        .build(app)
}

fn on_menu(app: &AppHandle, id: &str) {
    match id {
        "inbox" | "more" => crate::navigate::go(app, NavTarget::Inbox),
        "quit" => app.exit(0),
        "dnd" => crate::state::toggle_do_not_disturb(app),
        other => {
            if let Some(id) = other.strip_prefix("question:").and_then(|id| id.parse().ok()) {
                crate::navigate::go(app, NavTarget::Question { id });
            }
        }
    }
}

/// Shows `pending` in the tray.
pub fn update(app: &AppHandle, pending: &[TrayQuestion]) {
    let Some(tray) = app.tray_by_id(TRAY_ID) else { return };
    let model = model(pending);
    let dnd = app.try_state::<crate::state::App>().is_some_and(|state| state.settings().do_not_disturb());
    let icon = Image::from_bytes(if model.waiting { WAITING_ICON } else { IDLE_ICON });
    let result = (|| -> tauri::Result<()> {
        tray.set_title(Some(&model.title))?;
        tray.set_tooltip(Some(&model.title))?;
        tray.set_icon(Some(icon?))?;
        tray.set_menu(Some(menu(app, pending, dnd)?))?;
        Ok(())
    })();
    if let Err(err) = result {
        tracing::warn!(%err, "cannot update the tray");
    }
}
