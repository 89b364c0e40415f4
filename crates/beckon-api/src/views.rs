//! What the HTTP API answers with, as types: a question and a session as agents and scripts
//! read them, and the small replies of the other routes.
