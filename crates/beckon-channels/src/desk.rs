//! Where a channel's worker posts: its own place, or one paired person's own messages.

use beckon_core::Audience;
use beckon_store::ChannelPerson;

/// Where one part of a worker's pass posts, and the name its rows are kept under: the
/// channel's own place ("slack"), or one paired person's own messages ("slack:<subject>"), for
/// the questions a team server addresses to them or their groups.
#[derive(Debug, Clone)]
pub(crate) struct Desk {
    /// The name its rows are kept under.
    pub key: String,
    /// The paired person's account; none for the channel's own place.
    pub to: Option<String>,
    /// The audiences whose questions this desk posts (`person:<subject>`, `group:<name>`);
    /// none: every question not addressed to anyone.
    pub audiences: Option<Vec<String>>,
}

impl Desk {
    /// The channel's own place.
    pub fn shared(name: &str) -> Desk {
        Desk { key: name.to_owned(), to: None, audiences: None }
    }

    /// The own messages of someone no longer paired, kept under `key`: nothing more is posted
    /// there, but what was posted is still settled when its question ends.
    pub fn former(key: &str) -> Desk {
        Desk { key: key.to_owned(), to: None, audiences: Some(Vec::new()) }
    }

    /// `paired`'s own messages.
    pub fn person(name: &str, paired: &ChannelPerson) -> Desk {
        let person = &paired.person;
        let audiences = std::iter::once(Audience::Person(person.subject.clone()))
            .chain(person.groups.iter().cloned().map(Audience::Group))
            .map(|audience| audience.to_string())
            .collect();
        Desk { key: format!("{name}:{}", person.subject), to: Some(paired.account.clone()), audiences: Some(audiences) }
    }
}

#[cfg(test)]
mod tests {
    use beckon_store::SignedIn;

    use super::*;

    #[test]
    fn a_persons_desk_holds_what_is_addressed_to_them_or_their_groups_under_their_subject() {
        let paired = ChannelPerson {
            channel: "slack".into(),
            account: "U0ADA".into(),
            person: SignedIn {
                subject: "ada".into(),
                email: None,
                name: None,
                groups: vec!["eng".into(), "ops".into()],
            },
            paired_at_ms: 0,
            signed_in_at_ms: 0,
        };
        let desk = Desk::person("slack", &paired);
        assert_eq!((desk.key.as_str(), desk.to.as_deref()), ("slack:ada", Some("U0ADA")));
        assert_eq!(desk.audiences.unwrap(), ["person:ada", "group:eng", "group:ops"]);
        let shared = Desk::shared("slack");
        assert_eq!((shared.key.as_str(), shared.to, shared.audiences), ("slack", None, None));
    }
}
