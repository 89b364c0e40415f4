//! An empty Tauri app: one window showing one static page, nothing else.

fn main() {
    if let Err(err) = tauri::Builder::default().run(tauri::generate_context!()) {
        eprintln!("bench-minimal-tauri: {err}");
        std::process::exit(1);
    }
}
