//! The window's files (`ui/` built: `index.html` and its assets) served to browsers on a team
//! server, so people use the same window as in the desktop app. The files are public; what
//! they show comes from the routes a signed-in person may call.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use beckon_runtime::api::ErrorKind;

use crate::error::ApiError;
use crate::permissions::Route;
use crate::state::Shared;

/// What the page may load and where it may connect: this server only, never inside a frame.
const CONTENT_SECURITY_POLICY: &str =
    "default-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// What a route nobody serves gets: the window's page or file for a browser's `GET`, else 404.
pub async fn fallback(State(shared): State<Arc<Shared>>, method: Method, uri: Uri) -> Response {
    if let Some(dir) = &shared.window_dir
        && Route::of(&method, uri.path()) == Route::Page
    {
        return serve(dir, &uri).await;
    }
    ApiError::new(ErrorKind::NotFound, "no such route; see /v1/openapi.json").into_response()
}

/// Serves the window file `uri` names; paths that name no file are the window itself (it routes
/// by the part after `#`).
async fn serve(dir: &Path, uri: &Uri) -> Response {
    let Some(relative) = relative(uri.path()) else {
        return (StatusCode::NOT_FOUND, "no such file").into_response();
    };
    let wanted = dir.join(&relative);
    let (path, bytes) = match tokio::fs::read(&wanted).await {
        Ok(bytes) => (wanted, bytes),
        // Only a path that looks like a page falls back to the window; a missing asset is a 404.
        Err(_) if Path::new(&relative).extension().is_none() => {
            let index = dir.join("index.html");
            match tokio::fs::read(&index).await {
                Ok(bytes) => (index, bytes),
                Err(err) => {
                    tracing::error!(%err, path = %index.display(), "the window's index.html cannot be read");
                    return (StatusCode::INTERNAL_SERVER_ERROR, "the window's files cannot be read").into_response();
                }
            }
        }
        Err(_) => return (StatusCode::NOT_FOUND, "no such file").into_response(),
    };
    let mut response = bytes.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type(&path)));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    // Assets carry their content's hash in their names; the page itself is read fresh.
    let cache = if relative.starts_with("assets/") { "public, max-age=31536000, immutable" } else { "no-cache" };
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    response
}

/// The file a URL path names, relative to the window's folder: `index.html` for `/`; nothing
/// for a path that would leave the folder or name a hidden file.
fn relative(path: &str) -> Option<PathBuf> {
    let trimmed = path.trim_start_matches('/');
    if trimmed.is_empty() {
        return Some(PathBuf::from("index.html"));
    }
    if trimmed.contains('\\') || trimmed.contains('\0') {
        return None;
    }
    let relative = PathBuf::from(trimmed);
    let plain = relative.components().all(|component| match component {
        Component::Normal(part) => !part.to_string_lossy().starts_with('.'),
        _ => false,
    });
    plain.then_some(relative)
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_names_a_file_inside_the_folder_or_nothing() {
        assert_eq!(relative("/"), Some(PathBuf::from("index.html")));
        assert_eq!(relative("/assets/index-1a2b.js"), Some(PathBuf::from("assets/index-1a2b.js")));
        assert_eq!(relative("/inbox"), Some(PathBuf::from("inbox")));
        for leaving in ["/../etc/passwd", "/assets/../../x", "/./x", "/.env", "/assets/.hidden", "/a\\b"] {
            assert_eq!(relative(leaving), None, "{leaving}");
        }
    }

    #[test]
    fn files_are_sent_as_what_they_are() {
        assert_eq!(content_type(Path::new("index.html")), "text/html; charset=utf-8");
        assert_eq!(content_type(Path::new("assets/a.js")), "text/javascript; charset=utf-8");
        assert_eq!(content_type(Path::new("assets/a.css")), "text/css; charset=utf-8");
        assert_eq!(content_type(Path::new("manifest.webmanifest")), "application/manifest+json");
        assert_eq!(content_type(Path::new("x")), "application/octet-stream");
    }
}
