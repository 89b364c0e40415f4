//! TLS on the gateway's TCP port, for a team server reached without a reverse proxy in front:
//! a certificate chain and its private key read from PEM files (rustls with ring's
//! cryptography; TLS 1.2 and 1.3; HTTP/1.1). The private socket stays plain: only the
//! person's own processes can open it. The handshake runs in each connection's own task,
//! within the time a request's head is given, so a silent client holds one connection's place
//! and never the accept loop.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::crypto::ring;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::server::TlsStream;

use crate::GatewayError;

/// Where the certificate and its key are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, PEM, the server's own certificate first.
    pub certificate: PathBuf,
    /// Its private key, PEM (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
}

/// A loaded certificate and key, ready to accept connections with.
#[derive(Clone)]
pub struct Tls(TlsAcceptor);

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tls(..)")
    }
}

impl Tls {
    /// Reads `files` and checks that the key is the certificate's.
    pub fn load(files: &TlsFiles) -> Result<Tls, GatewayError> {
        let certificates = read_certificates(&files.certificate)?;
        let key = PrivateKeyDer::from_pem_file(&files.key).map_err(|err| GatewayError::Tls {
            path: files.key.clone(),
            detail: format!("no private key could be read from it ({err})"),
        })?;
        let mut config = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|err| GatewayError::Tls { path: files.certificate.clone(), detail: err.to_string() })?
            .with_no_client_auth()
            .with_single_cert(certificates, key)
            .map_err(|err| GatewayError::Tls {
                path: files.key.clone(),
                detail: format!("the key does not go with the certificate {} ({err})", files.certificate.display()),
            })?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Tls(TlsAcceptor::from(Arc::new(config))))
    }

    /// The server's half of a handshake on `stream`.
    pub(crate) async fn accept<S>(&self, stream: S) -> std::io::Result<TlsStream<S>>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        self.0.accept(stream).await
    }
}

fn read_certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, GatewayError> {
    let failed = |detail: String| GatewayError::Tls { path: path.to_owned(), detail };
    let certificates = CertificateDer::pem_file_iter(path)
        .map_err(|err| failed(format!("cannot read it ({err})")))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| failed(format!("not a PEM certificate chain ({err})")))?;
    if certificates.is_empty() {
        return Err(failed("holds no certificate (a PEM file with BEGIN CERTIFICATE)".into()));
    }
    Ok(certificates)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn files(dir: &Path, certificate: &str, key: &str) -> TlsFiles {
        let files = TlsFiles { certificate: dir.join("cert.pem"), key: dir.join("key.pem") };
        std::fs::write(&files.certificate, certificate).unwrap();
        std::fs::write(&files.key, key).unwrap();
        files
    }

    #[test]
    fn a_certificate_and_its_key_load() {
        let dir = tempfile::tempdir().unwrap();
        let made = rcgen::generate_simple_self_signed(vec!["beckon.test".into()]).unwrap();
        let files = files(dir.path(), &made.cert.pem(), &made.signing_key.serialize_pem());
        Tls::load(&files).unwrap();
    }

    #[test]
    fn files_that_cannot_serve_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let made = rcgen::generate_simple_self_signed(vec!["beckon.test".into()]).unwrap();
        let other = rcgen::generate_simple_self_signed(vec!["other.test".into()]).unwrap();

        let missing = TlsFiles { certificate: dir.path().join("absent.pem"), key: dir.path().join("absent.key") };
        let said = Tls::load(&missing).unwrap_err().to_string();
        assert!(said.contains("absent.pem") && said.contains("cannot read"), "{said}");

        let said = Tls::load(&files(dir.path(), "not a certificate", &made.signing_key.serialize_pem()))
            .unwrap_err()
            .to_string();
        assert!(said.contains("cert.pem") && said.contains("no certificate"), "{said}");

        let said = Tls::load(&files(dir.path(), &made.cert.pem(), &made.cert.pem())).unwrap_err().to_string();
        assert!(said.contains("key.pem") && said.contains("no private key"), "{said}");

        let said = Tls::load(&files(dir.path(), &made.cert.pem(), &other.signing_key.serialize_pem()))
            .unwrap_err()
            .to_string();
        assert!(said.contains("does not go with"), "{said}");
    }
}
