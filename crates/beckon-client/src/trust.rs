//! The certificate authorities Beckon's HTTPS clients trust beside the built-in web ones: the
//! system's (its store, or `SSL_CERT_FILE` and `SSL_CERT_DIR` where set) and those of a PEM file
//! the operator names (`--ca-file`), for a provider or team server behind a private authority.

use std::path::Path;

/// The system's authorities and `ca_file`'s, to add to a client. A file that cannot be read or
/// holds no certificate is refused (what is wrong, naming it); a system store that cannot be
/// read adds nothing.
pub fn authorities(ca_file: Option<&Path>) -> Result<Vec<reqwest::Certificate>, String> {
    let found = rustls_native_certs::load_native_certs();
    let mut authorities: Vec<reqwest::Certificate> =
        found.certs.iter().filter_map(|der| reqwest::Certificate::from_der(der).ok()).collect();
    if let Some(path) = ca_file {
        let pem = std::fs::read(path).map_err(|err| format!("--ca-file {}: cannot read it: {err}", path.display()))?;
        let named = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|err| format!("--ca-file {}: not PEM certificates: {err}", path.display()))?;
        if named.is_empty() {
            return Err(format!("--ca-file {} holds no certificate", path.display()));
        }
        authorities.extend(named);
    }
    Ok(authorities)
}

/// `detail` (an HTTPS request's failure), with what to do when it was the server's certificate
/// that was refused.
pub fn with_hint(detail: String) -> String {
    if detail.contains("certificate") {
        format!(
            "{detail}; if a private authority issued it, name that authority's certificate with --ca-file (or BECKON_CA_FILE)"
        )
    } else {
        detail
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_file_that_is_not_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ca.pem");
        std::fs::write(&path, "no certificate here").unwrap();
        let err = authorities(Some(&path)).unwrap_err();
        assert!(err.contains("ca.pem") && err.contains("no certificate"), "{err}");
        let err = authorities(Some(&dir.path().join("absent.pem"))).unwrap_err();
        assert!(err.contains("absent.pem") && err.contains("cannot read"), "{err}");
    }

    #[test]
    fn a_certificate_failure_says_what_to_do() {
        assert!(with_hint("invalid peer certificate: UnknownIssuer".into()).contains("--ca-file"));
        assert_eq!(with_hint("connection refused".into()), "connection refused");
    }
}
