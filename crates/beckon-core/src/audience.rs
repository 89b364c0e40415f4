//! Whose question it is on a team server: one person (by their identity provider's subject), a
//! group (by the provider's group name), or — with no audience — everyone. An agent token owned
//! by a person or group asks on their behalf, so what it asks goes to them; only they see it
//! and only they may answer it.

use std::fmt;

/// The people a question is addressed to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Audience {
    /// One person: the `sub` the identity provider gives them.
    Person(String),
    /// Everyone in one of the identity provider's groups.
    Group(String),
}

/// The longest subject or group name kept.
const NAME_MAX: usize = 200;

impl Audience {
    /// Reads `person:<subject>` or `group:<name>`; the problem, said for a person, otherwise.
    pub fn parse(text: &str) -> Result<Audience, String> {
        let (kind, name) = text.split_once(':').ok_or("must be person:<subject> or group:<name>")?;
        if name.is_empty() || name.len() > NAME_MAX || name.chars().any(char::is_control) {
            return Err(format!(
                "the name after \"{kind}:\" must be 1 to {NAME_MAX} characters, none of them control characters"
            ));
        }
        match kind {
            "person" => Ok(Audience::Person(name.to_owned())),
            "group" => Ok(Audience::Group(name.to_owned())),
            _ => Err("must be person:<subject> or group:<name>".to_owned()),
        }
    }

    /// Whether the person with `subject`, in `groups`, is among it.
    pub fn includes(&self, subject: &str, groups: &[String]) -> bool {
        match self {
            Audience::Person(person) => person == subject,
            Audience::Group(group) => groups.iter().any(|g| g == group),
        }
    }
}

/// Who may see a session (and what concerns it: its questions, its events) on a team server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Addressees {
    /// It was addressed to no one: everyone's.
    Everyone,
    /// It is addressed to these people.
    Only(Audience),
    /// There is no such session (never was, or retention removed it): nobody's, so what is
    /// left of it (an event that outlived it) is shown to no one but an admin.
    Gone,
}

impl Addressees {
    /// Whether the person with `subject`, in `groups`, is among them.
    pub fn include(&self, subject: &str, groups: &[String]) -> bool {
        match self {
            Addressees::Everyone => true,
            Addressees::Only(audience) => audience.includes(subject, groups),
            Addressees::Gone => false,
        }
    }
}

impl fmt::Display for Audience {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Audience::Person(subject) => write!(f, "person:{subject}"),
            Audience::Group(group) => write!(f, "group:{group}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_gone_session_is_nobodys_and_an_unaddressed_one_everyones() {
        let groups = vec!["eng".to_owned()];
        assert!(Addressees::Everyone.include("ada", &groups));
        assert!(!Addressees::Gone.include("ada", &groups));
        assert!(Addressees::Only(Audience::Group("eng".into())).include("bo", &groups));
        assert!(!Addressees::Only(Audience::Person("ada".into())).include("bo", &groups));
    }

    #[test]
    fn a_person_or_a_group_is_read_and_nothing_else() {
        assert_eq!(Audience::parse("person:ada"), Ok(Audience::Person("ada".into())));
        assert_eq!(Audience::parse("group:eng:web"), Ok(Audience::Group("eng:web".into())));
        for bad in ["ada", "person:", "team:eng", "everyone", "group:a\nb", ""] {
            assert!(Audience::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_the_person_or_the_groups_members_are_included() {
        let groups = vec!["eng".to_owned()];
        assert!(Audience::Person("ada".into()).includes("ada", &[]));
        assert!(!Audience::Person("ada".into()).includes("bo", &groups));
        assert!(Audience::Group("eng".into()).includes("bo", &groups));
        assert!(!Audience::Group("ops".into()).includes("ada", &groups));
        assert!(!Audience::Group("eng".into()).includes("eng", &[]), "a subject is not a group");
    }

    proptest! {
        #[test]
        fn an_audience_reads_back_as_written(name in "[a-zA-Z0-9@._:-]{1,40}", group in any::<bool>()) {
            let audience = if group { Audience::Group(name) } else { Audience::Person(name) };
            prop_assert_eq!(Audience::parse(&audience.to_string()), Ok(audience));
        }
    }
}
