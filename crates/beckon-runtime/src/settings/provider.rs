//! A model provider's settings: as the file keeps them, and how the person's new settings change
//! them.

use serde::{Deserialize, Serialize};

use super::value::{edit_secret, non_empty};

/// One provider as the file keeps it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProviderFile {
    /// The API key.
    pub api_key: Option<String>,
    /// The base URL (none: the provider's own).
    pub base_url: Option<String>,
    /// The default model.
    pub model: Option<String>,
}

/// One provider's new settings. An absent key keeps the current one; an empty one clears it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProviderInput {
    /// The API key: absent keeps, empty clears.
    #[cfg_attr(feature = "ts", ts(optional))]
    pub api_key: Option<String>,
    /// The base URL (empty for the provider's own).
    pub base_url: Option<String>,
    /// The default model (empty for Beckon's choice).
    pub model: Option<String>,
}

impl ProviderFile {
    /// Applies `input`. A new base URL drops the stored key unless one comes with it.
    pub fn apply(&mut self, input: ProviderInput) {
        let base_url = non_empty(input.base_url);
        let moved = base_url != self.base_url;
        edit_secret(&mut self.api_key, input.api_key, moved);
        self.base_url = base_url;
        self.model = non_empty(input.model);
    }
}
