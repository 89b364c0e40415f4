//! The window's commands as one typed list: what the window may ask of Beckon, with each
//! command's arguments and reply, the same over IPC in the desktop app and over HTTP on a team
//! server.
