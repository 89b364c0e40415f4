//! Who a person is, as the provider's claims say: name, email and groups, gathered from the ID
//! token and, for what it leaves out, the userinfo response; and the groups claim found where
//! the operator says the provider puts it.

use serde_json::{Map, Value};

/// The claims a sign-in reads about a person; `None` where the provider has not said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Claimed {
    pub(crate) email: Option<String>,
    pub(crate) name: Option<String>,
    /// `None` when the groups claim is absent (an empty list is a person in no group).
    pub(crate) groups: Option<Vec<String>>,
}

impl Claimed {
    /// Whether every claim is there, so there is nothing to ask userinfo for.
    pub(crate) fn is_whole(&self) -> bool {
        self.email.is_some() && self.name.is_some() && self.groups.is_some()
    }

    /// Takes from `other` what this does not have; what this has stays.
    pub(crate) fn fill(&mut self, other: Claimed) {
        self.email = self.email.take().or(other.email);
        self.name = self.name.take().or(other.name);
        self.groups = self.groups.take().or(other.groups);
    }
}

/// The groups in `claims` under `claim`: the claim of that exact name (a namespaced URL may hold
/// dots), else the dotted path into object claims (`realm_access.roles`). A list keeps its
/// strings; a single string is one group; `None` when the claim is absent.
pub(crate) fn groups(claims: &Map<String, Value>, claim: &str) -> Option<Vec<String>> {
    let value = claims.get(claim).or_else(|| {
        let mut parts = claim.split('.');
        let first = claims.get(parts.next()?)?;
        parts.try_fold(first, |value, part| value.get(part))
    })?;
    match value {
        Value::String(group) => Some(vec![group.clone()]),
        Value::Array(items) => Some(items.iter().filter_map(Value::as_str).map(str::to_owned).collect()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn claims(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn groups_are_found_by_name_then_by_path() {
        let all = claims(json!({
            "groups": ["ops", "dev"],
            "roles": "beckon-admins",
            "realm_access": {"roles": ["offline_access", "beckon-admins"]},
            "https://beckon.example/groups": ["from-a-namespace"],
            "odd": 7,
        }));
        assert_eq!(groups(&all, "groups"), Some(vec!["ops".into(), "dev".into()]));
        assert_eq!(groups(&all, "roles"), Some(vec!["beckon-admins".into()]));
        assert_eq!(groups(&all, "realm_access.roles"), Some(vec!["offline_access".into(), "beckon-admins".into()]));
        assert_eq!(groups(&all, "https://beckon.example/groups"), Some(vec!["from-a-namespace".into()]));
        assert_eq!(groups(&all, "realm_access.absent"), None);
        assert_eq!(groups(&all, "absent"), None);
        assert_eq!(groups(&all, "odd"), None);
        assert_eq!(groups(&claims(json!({"groups": ["a", 1, null]})), "groups"), Some(vec!["a".into()]));
        assert_eq!(groups(&claims(json!({"groups": []})), "groups"), Some(vec![]));
    }

    #[test]
    fn userinfo_fills_only_what_the_id_token_left_out() {
        let mut person = Claimed { email: Some("ada@id-token".into()), name: None, groups: Some(vec![]) };
        assert!(!person.is_whole());
        person.fill(Claimed {
            email: Some("ada@userinfo".into()),
            name: Some("Ada".into()),
            groups: Some(vec!["ops".into()]),
        });
        assert_eq!(
            person,
            Claimed { email: Some("ada@id-token".into()), name: Some("Ada".into()), groups: Some(vec![]) }
        );
        assert!(person.is_whole());
    }
}
