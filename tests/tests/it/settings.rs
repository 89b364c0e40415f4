//! The callback signing secret in the real window: hidden until the person asks, the same one
//! Beckon stores and signs with, and replaced by a rotation the person confirms.

use std::time::{Duration, Instant};

use beckon_e2e::{App, Failure, Home};
use fantoccini::elements::Element;

fn stored(home: &Home) -> String {
    beckon_runtime::callbacks::stored_secret(&home.data_dir()).unwrap().expect("a secret made at the first start")
}

/// Whether `secret` is anywhere in the window: its markup or any field's value.
async fn on_screen(app: &App, secret: &str) -> Result<bool, Failure> {
    let script = format!(
        "const s = '{secret}'; return document.body.innerHTML.includes(s) || \
         [...document.querySelectorAll('input')].some((input) => input.value.includes(s))"
    );
    Ok(app.eval(&script).await? == serde_json::Value::Bool(true))
}

/// The secret field's value once it differs from `before`.
async fn shown_secret(app: &App, before: &str) -> Result<String, Failure> {
    let started = Instant::now();
    loop {
        let field: Element = app.find(".settings-view input[readonly]", "").await?;
        let value = field.prop("value").await?.unwrap_or_default();
        if !value.is_empty() && value != before {
            return Ok(value);
        }
        if started.elapsed() > Duration::from_secs(20) {
            return Err(format!("the secret field still shows {value:?}").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn the_signing_secret_is_shown_on_request_and_rotated_after_a_confirmation() -> Result<(), Failure> {
    let home = Home::new()?;
    let app = App::launch(&home).await?;
    app.click("button[aria-label=Settings], a[aria-label=Settings]", "").await?;
    app.find("h1", "Settings").await?;
    let secret = stored(&home);
    assert_eq!(secret.len(), 64, "32 random bytes in hex");
    assert!(!on_screen(&app, &secret).await?, "the secret is in the window only when asked for");

    app.click(".settings-view button", "Show secret").await?;
    assert_eq!(shown_secret(&app, "").await?, secret, "the window shows the secret Beckon signs with");

    app.click(".settings-view button", "Rotate…").await?;
    app.find(".confirm-row", "refuse every callback").await?;
    assert_eq!(stored(&home), secret, "nothing changes before the person confirms");
    app.click(".confirm-row button", "Rotate now").await?;
    let rotated = shown_secret(&app, &secret).await?;
    assert_ne!(rotated, secret);
    assert_eq!(stored(&home), rotated, "the new secret is stored, and so survives a restart");

    app.click(".settings-view button", "Hide").await?;
    assert!(!on_screen(&app, &rotated).await?, "hidden again");
    app.quit().await
}
