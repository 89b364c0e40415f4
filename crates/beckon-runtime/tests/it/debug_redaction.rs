//! Secrets never show in `Debug` output: provider keys, the callback secret, and the path of a
//! callback URL (a Slack webhook's path is its credential).

use beckon_runtime::{ExternalAsk, ProviderSettings, RuntimeConfig};

use crate::support::*;

const ANTHROPIC_KEY: &str = "sk-ant-api03-very-secret";
const OPENAI_KEY: &str = "sk-proj-also-secret";

fn configured(dir: &std::path::Path) -> RuntimeConfig {
    let mut config = RuntimeConfig::new(dir);
    config.anthropic = ProviderSettings { api_key: Some(ANTHROPIC_KEY.into()), ..ProviderSettings::default() };
    config.openai = ProviderSettings {
        api_key: Some(OPENAI_KEY.into()),
        base_url: Some("http://127.0.0.1:11434/v1".into()),
        model: Some("llama3".into()),
    };
    config
}

#[test]
fn provider_keys_are_redacted_in_settings_and_configuration() {
    let config = configured(std::path::Path::new("/data"));
    for shown in [format!("{:?}", config.anthropic), format!("{:?}", config.openai), format!("{config:?}")] {
        assert!(!shown.contains(ANTHROPIC_KEY) && !shown.contains(OPENAI_KEY), "{shown}");
        assert!(shown.contains("<redacted>"), "says a key is set: {shown}");
    }
    let shown = format!("{:#?}", config.openai);
    assert!(shown.contains("http://127.0.0.1:11434/v1") && shown.contains("llama3"), "the rest stays: {shown}");
    assert!(format!("{:?}", ProviderSettings::default()).contains("api_key: None"));
}

#[test]
fn a_callback_urls_path_and_query_are_left_out() {
    let ask = ExternalAsk {
        agent: "ci-bot".into(),
        callback_url: Some("https://hooks.slack.com/services/T0/B0/XXXXSECRET?token=hidden".into()),
        ..ExternalAsk::default()
    };
    let shown = format!("{ask:?}");
    assert!(shown.contains("https://hooks.slack.com:443") && shown.contains("ci-bot"), "{shown}");
    assert!(!shown.contains("XXXXSECRET") && !shown.contains("hidden") && !shown.contains("/services"), "{shown}");
}

#[tokio::test]
async fn a_running_beckon_shows_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    let (beckon, _) = start_with(configured(dir.path())).await;
    let secret = beckon.configuration().rotate_callback_secret().await.unwrap();
    for shown in [format!("{beckon:?}"), format!("{beckon:#?}")] {
        assert!(!shown.contains(&secret), "{shown}");
        assert!(!shown.contains(ANTHROPIC_KEY) && !shown.contains(OPENAI_KEY), "{shown}");
    }
    beckon.shutdown().await;
}
