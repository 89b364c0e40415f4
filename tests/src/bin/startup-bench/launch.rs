//! What every launch of an app by the bench sets.

/// Every app the bench starts listens for agents on a port of its own choosing: the default
/// one may be taken by a Beckon already running on this computer.
pub const ANY_GATEWAY_PORT: (&str, &str) = ("BECKON_GATEWAY_PORT", "0");
