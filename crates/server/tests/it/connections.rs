//! The connection limits of `http::serve_with` over a real socket.

use std::{net::SocketAddr, time::Duration};

use axum::{Router, routing::get};
use bytes::Bytes;
use mrtd_server::ConnectionLimits;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpSocket, TcpStream},
    time::{Instant, timeout},
};

/// Far more than the kernel buffers of both ends can hold, so a client that does not read
/// leaves most of it unsent.
const BIG: usize = 24 * 1024 * 1024;

/// Serves a `BIG`-byte body at `/big` and `ok` at `/small` within `limits` on a port from
/// the OS.
async fn serve(limits: ConnectionLimits) -> SocketAddr {
    let body = Bytes::from(vec![b'x'; BIG]);
    let app = Router::new()
        .route("/big", get(move || async move { body }))
        .route("/small", get(|| async { "ok" }));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        mrtd_server::http::serve_with(listener, app, &limits, std::future::pending()).await
    });
    addr
}

/// A connection with a small receive buffer that has asked for `/big`.
async fn ask_for_big(addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    stream
        .write_all(b"GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    stream
}

/// Reads until the server closes the connection (end of file or reset) and returns how
/// many bytes came; panics when it stays open for `limit`.
async fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> usize {
    let mut received = 0;
    let mut buffer = vec![0; 64 * 1024];
    let deadline = Instant::now() + limit;
    loop {
        match timeout(deadline - Instant::now(), stream.read(&mut buffer)).await {
            Err(_) => panic!("the connection was still open after {limit:?}"),
            Ok(Ok(0) | Err(_)) => return received,
            Ok(Ok(n)) => received += n,
        }
    }
}

#[tokio::test]
async fn a_client_that_never_reads_its_response_is_disconnected() {
    let response_timeout = Duration::from_millis(300);
    let addr = serve(ConnectionLimits { response_timeout, ..ConnectionLimits::default() }).await;

    let mut idle = ask_for_big(addr).await;
    // The client reads nothing while the server's write stalls for the response timeout.
    tokio::time::sleep(response_timeout * 3).await;
    let received = read_until_closed(&mut idle, Duration::from_secs(5)).await;
    assert!(
        received < BIG,
        "the server kept writing to a client that did not read ({received} bytes came)"
    );

    // A client that pauses for less than the timeout gets the whole response.
    let mut steady = ask_for_big(addr).await;
    let mut head_and_some = vec![0; 1024 * 1024];
    steady.read_exact(&mut head_and_some).await.unwrap();
    tokio::time::sleep(response_timeout / 3).await;
    let rest = read_until_closed(&mut steady, Duration::from_secs(10)).await;
    assert!(head_and_some.len() + rest > BIG, "only {} bytes came", head_and_some.len() + rest);
}

/// Asks for `/small` on `stream` and reads the answer; `None` when the connection is
/// closed instead.
async fn small(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let request = b"GET /small HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    stream.write_all(request).await.ok()?;
    let mut received = Vec::new();
    let mut buffer = [0; 1024];
    while !received.ends_with(b"\r\n\r\nok") {
        match timeout(Duration::from_secs(5), stream.read(&mut buffer)).await {
            Err(_) => panic!("no answer: {}", String::from_utf8_lossy(&received)),
            Ok(Ok(0) | Err(_)) => return None,
            Ok(Ok(n)) => received.extend_from_slice(&buffer[..n]),
        }
    }
    Some(received)
}

#[tokio::test]
async fn an_address_holding_its_share_of_the_connections_gets_no_more() {
    let limits = ConnectionLimits { max_connections_per_address: 2, ..ConnectionLimits::default() };
    let addr = serve(limits).await;

    // Two kept-alive connections, each answered, so the server has counted both.
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let answer = small(&mut stream).await.expect("served within the cap");
        assert!(answer.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&answer));
        held.push(stream);
    }

    // The third from the same address is closed before anything is read.
    let mut third = TcpStream::connect(addr).await.unwrap();
    assert_eq!(read_until_closed(&mut third, Duration::from_secs(5)).await, 0);

    // Once one of the two is closed, the address is served again (as soon as the server has
    // seen the close).
    drop(held.pop());
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        if small(&mut stream).await.is_some() {
            break;
        }
        assert!(Instant::now() < deadline, "the closed connection's slot was never freed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The one still held was served all along.
    assert!(small(&mut held[0]).await.is_some());
}
