//! Accepting connections without letting them exhaust the process. Any local process may
//! connect, token or not; an idle connection costs a file handle, and the process's handles
//! are also what model calls, callbacks and notifications need. So connections are capped
//! (one over the cap is closed as soon as it is accepted, which costs nothing to keep), a
//! connection must send a whole request head within a time limit (this also ends keep-alive
//! connections left idle: hyper starts that clock again while it waits for the next request),
//! and a request body must arrive within its own limit (see the guard). A long-poll, an SSE
//! stream or an MCP stream is not idle: once its request is read it may stay open as long as
//! its route allows, holding one of the capped places.
//!
//! The same loop serves the loopback port and the private socket (see [`crate::local_socket`]),
//! each door with a cap of its own, so that a flood at one leaves the other's places free.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::Request;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::connection_limits::ConnectionLimits;
use crate::metrics::DoorTally;
use crate::strangers::{Peer, Stranger, Strangers};
use crate::tls::Tls;

/// Which connection a request came on: write limits are kept per connection, something a
/// caller cannot name for itself as it could a header. Numbered across both doors, so no two
/// open connections share one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConnectionId(pub u64);

/// Which door a request came in by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// The TCP port on 127.0.0.1, open to every local process.
    Loopback,
    /// The socket in the data folder, open to the person's own processes only.
    LocalSocket,
}

/// Where connections come from: a TCP port or the private socket.
pub trait Listener: Send + 'static {
    /// One accepted connection.
    type Stream: AsyncRead + AsyncWrite + Unpin + Send + 'static;

    /// The next connection, and the address it comes from where it has one.
    fn accept(&self) -> impl Future<Output = io::Result<(Self::Stream, Peer)>> + Send;
}

impl Listener for TcpListener {
    type Stream = TcpStream;

    async fn accept(&self) -> io::Result<(TcpStream, Peer)> {
        TcpListener::accept(self).await.map(|(stream, from)| (stream, Peer(Some(from.ip()))))
    }
}

/// One door's share of the limits: which it is, how many connections it may hold, whether
/// they speak TLS, and where its connections are counted.
#[derive(Debug, Clone)]
pub(crate) struct Door {
    /// Which door.
    pub transport: Transport,
    /// Connections open at once through it.
    pub max_connections: usize,
    /// The certificate its connections are served with; plain HTTP without one.
    pub tls: Option<Tls>,
    /// Its connections, counted for the metrics.
    pub tally: Arc<DoorTally>,
}

impl Door {
    /// The TCP port, within `limits`, with `tls` when it has one, counted in `tally`.
    pub fn loopback(limits: &ConnectionLimits, tls: Option<Tls>, tally: Arc<DoorTally>) -> Door {
        Door { transport: Transport::Loopback, max_connections: limits.max_connections, tls, tally }
    }

    /// The private socket, within `limits` (plain: only the person's processes can open it),
    /// counted in `tally`.
    pub fn local_socket(limits: &ConnectionLimits, tally: Arc<DoorTally>) -> Door {
        Door { transport: Transport::LocalSocket, max_connections: limits.max_local_connections, tls: None, tally }
    }
}

// The waits and limits here are on tokio's (and hyper's) time, not the runtime's clock: they
// pace real I/O (accepting, reading a request's head) and the log, where a clock moved by hand
// would mean nothing to a connected peer.

/// How long to wait after the process runs out of file handles before accepting again, so a
/// flood does not turn the accept loop into a busy one.
pub(crate) const ACCEPT_PAUSE: Duration = Duration::from_millis(50);
/// The least time between two warnings that connections are being refused.
const WARN_EVERY: Duration = Duration::from_secs(60);

/// The connection a request came on, while no request on it has been authenticated (see
/// [`crate::strangers`]).
#[derive(Debug, Clone)]
pub(crate) struct StrangerConnection(pub Arc<Stranger>);

/// Numbers connections for [`ConnectionId`], across every door.
#[derive(Debug, Clone, Default)]
pub(crate) struct ConnectionIds(Arc<AtomicU64>);

impl ConnectionIds {
    fn next(&self) -> ConnectionId {
        ConnectionId(self.0.fetch_add(1, Ordering::Relaxed) + 1)
    }
}

/// Serves `app` on `listener` as `door`, within `limits`, until `stop` fires; then stops
/// accepting and asks every open connection to close once its current request is answered.
pub(crate) async fn serve<L: Listener>(
    listener: L,
    door: Door,
    app: Router,
    limits: ConnectionLimits,
    (ids, strangers): (ConnectionIds, Arc<Strangers>),
    stop: CancellationToken,
) {
    let places = Arc::new(Semaphore::new(door.max_connections));
    let closing = CancellationToken::new();
    let mut last_warning: Option<Instant> = None;
    let mut refused: u64 = 0;
    loop {
        let accepted = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(err) => {
                tracing::warn!(%err, transport = ?door.transport, "the gateway cannot accept a connection");
                tokio::time::sleep(ACCEPT_PAUSE).await;
                continue;
            }
        };
        // A stranger's address may hold only its share of the places (none to take over TCP
        // from the private socket, which has no address).
        let stranger = match peer.0 {
            Some(address) => match strangers.admit(address) {
                Some(stranger) => Some(Arc::new(stranger)),
                None => {
                    drop(stream);
                    refused += 1;
                    door.tally.refused();
                    continue;
                }
            },
            None => None,
        };
        let Ok(place) = places.clone().try_acquire_owned() else {
            drop(stream);
            refused += 1;
            door.tally.refused();
            if last_warning.is_none_or(|at| at.elapsed() >= WARN_EVERY) {
                tracing::warn!(
                    transport = ?door.transport,
                    max_connections = door.max_connections,
                    refused,
                    "the gateway is at its connection limit; closing new connections until some end"
                );
                last_warning = Some(Instant::now());
            }
            continue;
        };
        let open = door.tally.accepted();
        let id = ids.next();
        let app = app.clone();
        let transport = door.transport;
        let service = TowerToHyperService::new(tower::service_fn(move |mut request: Request<Incoming>| {
            request.extensions_mut().insert(id);
            request.extensions_mut().insert(transport);
            request.extensions_mut().insert(peer);
            if let Some(stranger) = &stranger {
                request.extensions_mut().insert(StrangerConnection(stranger.clone()));
            }
            app.clone().oneshot(request)
        }));
        let closing = closing.clone();
        let tls = door.tls.clone();
        tokio::spawn(async move {
            match tls {
                None => answer(stream, service, limits, closing).await,
                Some(tls) => match tokio::time::timeout(limits.header_timeout, tls.accept(stream)).await {
                    Ok(Ok(stream)) => answer(stream, service, limits, closing).await,
                    Ok(Err(err)) => tracing::debug!(%err, "a TLS handshake failed"),
                    Err(_) => tracing::debug!("a TLS handshake took longer than a request's head may"),
                },
            }
            drop((place, open));
        });
    }
    closing.cancel();
}

/// Answers requests on one connection until it ends, or until `closing` fires and its current
/// request is answered.
pub(crate) async fn answer<S, Service>(
    stream: S,
    service: Service,
    limits: ConnectionLimits,
    closing: CancellationToken,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    Service: hyper::service::Service<Request<Incoming>, Response = axum::response::Response> + Send + 'static,
    Service::Future: Send + 'static,
    Service::Error: std::error::Error + Send + Sync + 'static,
{
    let connection = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    tokio::pin!(connection);
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = closing.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(err) = result {
        tracing::debug!(%err, "a gateway connection ended with an error");
    }
}
