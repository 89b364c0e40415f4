//! Starting `beckon serve` with arguments that must be refused, and a free port to start it on.

/// Runs `beckon serve --port 0` with `args` on an empty data folder, which must refuse to start
/// and serve nothing: what it said on standard error.
pub fn refused(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_beckon"))
        .arg("--data-dir")
        .arg(dir.path())
        .args(["serve", "--port", "0"])
        .args(args)
        .env_remove("BECKON_DATABASE_URL")
        .env_remove("BECKON_OIDC_CLIENT_SECRET")
        .output()
        .unwrap();
    assert!(!output.status.success(), "{args:?} should be refused");
    assert!(!dir.path().join("gateway.json").exists(), "{args:?}: nothing was served");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A port nobody listens on just now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}
