//! TLS to PostgreSQL as libpq's connection settings describe it: `sslmode` (`disable`, `allow`,
//! `prefer`, `require`, `verify-ca`, `verify-full`) and `sslrootcert` (a PEM file of the
//! certificate authorities to trust, or `system`), in a URL's query or among `key=value`
//! settings. `tokio-postgres` knows neither the verifying modes nor `sslrootcert`, so they are
//! taken out of the URL here and become a rustls configuration:
//!
//! - `disable`: no TLS.
//! - `allow`, `prefer` (the default): TLS when the server offers it, its certificate unchecked —
//!   as libpq does; encrypted against a passive listener only.
//! - `require`: TLS or no connection; the certificate unchecked unless `sslrootcert` is given,
//!   when it must chain to it (as libpq does).
//! - `verify-ca`: TLS, the certificate chained to a trusted authority.
//! - `verify-full`: that, and issued for the host connected to.
//!
//! The authorities are `sslrootcert`'s, else the system's (`SSL_CERT_FILE` and `SSL_CERT_DIR`
//! where set).

use std::str::FromStr;
use std::sync::Arc;

use tokio_postgres::Config;
use tokio_postgres::config::SslMode;
use tokio_postgres_rustls::MakeRustlsConnect;
use tokio_rustls::rustls;
use tokio_rustls::rustls::client::WebPkiServerVerifier;
use tokio_rustls::rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use tokio_rustls::rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};

use crate::error::{Error, Result};

/// How a connection's server is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Check {
    /// No TLS.
    Plain,
    /// TLS, the certificate taken as it comes (`required`: or no connection).
    Unchecked { required: bool },
    /// TLS, the certificate chained to the authorities (`name`: and issued for the host).
    Verified { roots: Roots, name: bool },
}

/// Where the trusted authorities come from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Roots {
    System,
    File(String),
}

/// A database URL's connection settings and how to speak TLS to it.
pub(crate) struct Target {
    pub(crate) config: Config,
    pub(crate) tls: MakeRustlsConnect,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target").finish_non_exhaustive()
    }
}

/// Reads a database URL (`postgres://…?sslmode=verify-full&sslrootcert=ca.pem` or
/// `host=… sslmode=…`): its connection settings, and the TLS its `sslmode` and `sslrootcert` ask
/// for.
pub(crate) fn target(url: &str) -> Result<Target> {
    let bad = |detail: String| Error::Connect { database: "the database URL".into(), detail };
    let (rest, mode, root) = split_tls_settings(url).map_err(bad)?;
    let mut config = Config::from_str(&rest).map_err(|err| bad(err.to_string()))?;
    let check = check(mode.as_deref(), root).map_err(bad)?;
    config.ssl_mode(match check {
        Check::Plain => SslMode::Disable,
        Check::Unchecked { required: false } => SslMode::Prefer,
        Check::Unchecked { required: true } | Check::Verified { .. } => SslMode::Require,
    });
    let tls = MakeRustlsConnect::new(client_config(&check).map_err(bad)?);
    Ok(Target { config, tls })
}

/// The database URL `url`, trusting the authorities in `ca_file` where it names none of its own
/// (`sslrootcert`): a team server's `--ca-file` reaching its database.
pub fn trusting(url: &str, ca_file: &std::path::Path) -> String {
    let Ok((_, _, None)) = split_tls_settings(url) else { return url.to_owned() };
    let file = ca_file.to_string_lossy();
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        match url::Url::parse(url) {
            Ok(mut parsed) => {
                parsed.query_pairs_mut().append_pair("sslrootcert", &file);
                parsed.to_string()
            }
            Err(_) => url.to_owned(),
        }
    } else {
        format!("{url} sslrootcert={file}")
    }
}

/// `sslmode` and `sslrootcert` as libpq reads them.
fn check(mode: Option<&str>, root: Option<String>) -> std::result::Result<Check, String> {
    let roots = root.map(|root| if root == "system" { Roots::System } else { Roots::File(root) });
    Ok(match (mode.unwrap_or("prefer"), roots) {
        ("disable", _) => Check::Plain,
        ("allow" | "prefer", _) => Check::Unchecked { required: false },
        ("require", None) => Check::Unchecked { required: true },
        ("require" | "verify-ca", Some(roots)) => Check::Verified { roots, name: false },
        ("verify-ca", None) => Check::Verified { roots: Roots::System, name: false },
        ("verify-full", roots) => Check::Verified { roots: roots.unwrap_or(Roots::System), name: true },
        (other, _) => {
            return Err(format!(
                "sslmode={other} is not one of disable, allow, prefer, require, verify-ca, verify-full"
            ));
        }
    })
}

type Split = (String, Option<String>, Option<String>);

/// `url` without its `sslmode` and `sslrootcert`, and their values.
fn split_tls_settings(url: &str) -> std::result::Result<Split, String> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let mut parsed = url::Url::parse(url).map_err(|err| format!("not a URL: {err}"))?;
        let (mut mode, mut root) = (None, None);
        let kept: Vec<(String, String)> = parsed
            .query_pairs()
            .filter_map(|(key, value)| match key.as_ref() {
                "sslmode" => {
                    mode = Some(value.into_owned());
                    None
                }
                "sslrootcert" => {
                    root = Some(value.into_owned());
                    None
                }
                _ => Some((key.into_owned(), value.into_owned())),
            })
            .collect();
        if kept.is_empty() {
            parsed.set_query(None);
        } else {
            parsed.query_pairs_mut().clear().extend_pairs(kept);
        }
        return Ok((parsed.to_string(), mode, root));
    }
    // `key=value` settings, separated by spaces (values holding spaces are quoted and are left
    // as they are: these two settings never need that).
    let (mut mode, mut root, mut kept) = (None, None, Vec::new());
    for setting in url.split_whitespace() {
        match setting.split_once('=') {
            Some(("sslmode", value)) => mode = Some(value.to_owned()),
            Some(("sslrootcert", value)) => root = Some(value.to_owned()),
            _ => kept.push(setting),
        }
    }
    Ok((kept.join(" "), mode, root))
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The rustls client configuration for `check`.
fn client_config(check: &Check) -> std::result::Result<rustls::ClientConfig, String> {
    let builder = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|err| format!("cannot set up TLS: {err}"))?;
    let config = match check {
        Check::Plain | Check::Unchecked { .. } => {
            builder.dangerous().with_custom_certificate_verifier(Arc::new(Unchecked)).with_no_client_auth()
        }
        Check::Verified { roots, name } => {
            let verifier = WebPkiServerVerifier::builder_with_provider(Arc::new(root_store(roots)?), provider())
                .build()
                .map_err(|err| format!("cannot check certificates: {err}"))?;
            if *name {
                builder.with_webpki_verifier(verifier).with_no_client_auth()
            } else {
                builder
                    .dangerous()
                    .with_custom_certificate_verifier(Arc::new(ChainOnly(verifier)))
                    .with_no_client_auth()
            }
        }
    };
    Ok(config)
}

/// The authorities `roots` names.
fn root_store(roots: &Roots) -> std::result::Result<RootCertStore, String> {
    let mut store = RootCertStore::empty();
    match roots {
        Roots::File(path) => {
            let certificates = CertificateDer::pem_file_iter(path)
                .map_err(|err| format!("sslrootcert={path}: cannot read it: {err}"))?
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|err| format!("sslrootcert={path}: not a PEM certificate file: {err}"))?;
            let (added, _) = store.add_parsable_certificates(certificates);
            if added == 0 {
                return Err(format!("sslrootcert={path} holds no certificate"));
            }
        }
        Roots::System => {
            let found = rustls_native_certs::load_native_certs();
            store.add_parsable_certificates(found.certs);
            if store.is_empty() {
                return Err("sslmode asks to verify the server, and the system trusts no certificate authority: name one with sslrootcert".into());
            }
        }
    }
    Ok(store)
}

/// Takes any certificate (`prefer`, `require` without authorities: libpq's meaning), while
/// still checking that the server holds its key.
#[derive(Debug)]
struct Unchecked;

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &provider().signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &provider().signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        provider().signature_verification_algorithms.supported_schemes()
    }
}

/// Checks the chain but not the name (`verify-ca`).
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        match self.0.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_settings_are_taken_out_of_either_form() {
        let (rest, mode, root) = split_tls_settings(
            "postgres://beckon@db.internal:5432/beckon?sslmode=verify-full&sslrootcert=/etc/ca.pem&application_name=x",
        )
        .unwrap();
        assert_eq!(rest, "postgres://beckon@db.internal:5432/beckon?application_name=x");
        assert_eq!((mode.as_deref(), root.as_deref()), (Some("verify-full"), Some("/etc/ca.pem")));
        let (rest, mode, root) = split_tls_settings("postgres://beckon@db/beckon?sslmode=require").unwrap();
        assert_eq!((rest.as_str(), mode.as_deref(), root), ("postgres://beckon@db/beckon", Some("require"), None));
        let (rest, mode, root) =
            split_tls_settings("host=db dbname=beckon sslmode=verify-ca sslrootcert=ca.pem").unwrap();
        assert_eq!(
            (rest.as_str(), mode.as_deref(), root.as_deref()),
            ("host=db dbname=beckon", Some("verify-ca"), Some("ca.pem"))
        );
        let (rest, mode, root) = split_tls_settings("postgres://beckon@db/beckon").unwrap();
        assert_eq!((rest.as_str(), mode, root), ("postgres://beckon@db/beckon", None, None));
    }

    #[test]
    fn a_ca_file_is_the_root_only_where_the_url_names_none() {
        let ca = std::path::Path::new("/etc/beckon/ca.pem");
        assert_eq!(
            trusting("postgres://beckon@db/beckon?sslmode=verify-full", ca),
            "postgres://beckon@db/beckon?sslmode=verify-full&sslrootcert=%2Fetc%2Fbeckon%2Fca.pem"
        );
        let own = "postgres://beckon@db/beckon?sslmode=verify-full&sslrootcert=own.pem";
        assert_eq!(trusting(own, ca), own);
        assert_eq!(trusting("host=db sslmode=require", ca), "host=db sslmode=require sslrootcert=/etc/beckon/ca.pem");
    }

    #[test]
    fn sslmode_means_what_it_means_to_libpq() {
        let file = || Some("ca.pem".to_owned());
        let ca = || Roots::File("ca.pem".into());
        assert_eq!(check(Some("disable"), file()), Ok(Check::Plain));
        assert_eq!(check(None, None), Ok(Check::Unchecked { required: false }));
        assert_eq!(check(Some("allow"), None), Ok(Check::Unchecked { required: false }));
        assert_eq!(check(Some("require"), None), Ok(Check::Unchecked { required: true }));
        assert_eq!(check(Some("require"), file()), Ok(Check::Verified { roots: ca(), name: false }));
        assert_eq!(check(Some("verify-ca"), None), Ok(Check::Verified { roots: Roots::System, name: false }));
        assert_eq!(check(Some("verify-full"), file()), Ok(Check::Verified { roots: ca(), name: true }));
        assert_eq!(
            check(Some("verify-full"), Some("system".into())),
            Ok(Check::Verified { roots: Roots::System, name: true })
        );
        assert!(check(Some("verify_full"), None).unwrap_err().contains("verify-full"));
    }

    #[test]
    fn a_root_file_that_is_not_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ca.pem");
        std::fs::write(&path, "not a certificate").unwrap();
        let path = path.to_str().unwrap().to_owned();
        let err = root_store(&Roots::File(path.clone())).unwrap_err();
        assert!(err.contains(&path) && err.contains("no certificate"), "{err}");
        let err = root_store(&Roots::File(format!("{path}.absent"))).unwrap_err();
        assert!(err.contains("cannot read"), "{err}");
    }
}
