//! The audit trail: one row per resolved question or approval — who asked, what, how it ended,
//! where from and by whom — kept for its own period after the conversation is gone. The row, its
//! names and which rows to read are beckon-api's (the wire contract); whose share a read covers
//! is decided here, on the server.

/// Whose part of the audit trail a read covers. Never read from a request: the server decides it
/// from who is asking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditShare {
    /// Every row: the person on their own Beckon; on a team server, the admin token and the
    /// admin group's members.
    Whole,
    /// One signed-in person's share on a team server:
    /// - the rows of questions addressed to them, to one of their groups, or to everyone (a
    ///   session without an audience), read from the question's session while it is kept: once
    ///   retention has removed it, whose it was is no longer known, and the row is nobody's;
    /// - and, for as long as the row is kept, the rows of what they answered (`by` is their
    ///   [`SignedIn::answered_by`](crate::SignedIn::answered_by), from their page or a channel
    ///   account they paired).
    Person {
        /// Their identity provider's `sub`.
        subject: String,
        /// Their identity provider's groups.
        groups: Vec<String>,
    },
}
