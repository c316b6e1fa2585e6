//! The fetcher against a real HTTP server on loopback: what is fetched, and every refusal.

use std::{net::SocketAddr, time::Duration};

use mrtd_fetch::{FetchError, FetchPolicy, Fetcher};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};

const LIMIT: usize = 1000;

/// How many requests for `/silent-turn` the test server has received: the one test that
/// asks for it waits on this, not on a pause, to know the silent fetch holds its turn.
static SILENT_TURNS_SEEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A server on 127.0.0.1 answering canned responses by path; its address.
async fn server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            tokio::spawn(answer(stream, addr));
        }
    });
    addr
}

async fn answer(mut stream: TcpStream, addr: SocketAddr) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).await.unwrap_or(0) == 0 {
            return;
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_string();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let redirect = |to: String| {
        format!("HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\n\r\n").into_bytes()
    };
    let response: Vec<u8> = match path.as_str() {
        "/photo.jpg" => {
            let mut r = b"HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: 9\r\n\r\n"
                .to_vec();
            r.extend_from_slice(b"JPEG DATA");
            r
        }
        "/untyped" => b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nDATA".to_vec(),
        "/page" => b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: 6\r\n\r\n<html>".to_vec(),
        "/declared-big" => format!(
            "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: {}\r\n\r\n",
            LIMIT + 1
        )
        .into_bytes(),
        "/chunked-big" => {
            let mut r =
                b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\n"
                    .to_vec();
            for _ in 0..3 {
                r.extend_from_slice(format!("{:x}\r\n", 400).as_bytes());
                r.extend_from_slice(&[b'x'; 400]);
                r.extend_from_slice(b"\r\n");
            }
            r.extend_from_slice(b"0\r\n\r\n");
            r
        }
        "/missing" => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_vec(),
        "/relative" => redirect("/photo.jpg".to_owned()),
        "/absolute" => redirect(format!("http://{addr}/photo.jpg")),
        "/to-private" => redirect("http://10.0.0.1/photo.jpg".to_owned()),
        "/to-metadata" => redirect("http://169.254.169.254/latest/meta-data/".to_owned()),
        "/to-other-loopback" => redirect(format!("http://127.0.0.2:{}/photo.jpg", addr.port())),
        "/to-file" => redirect("file:///etc/passwd".to_owned()),
        "/no-location" => b"HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n".to_vec(),
        "/loop" => redirect("/loop".to_owned()),
        "/silent" => {
            tokio::time::sleep(Duration::from_secs(30)).await;
            return;
        }
        "/silent-turn" => {
            SILENT_TURNS_SEEN.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            tokio::time::sleep(Duration::from_secs(30)).await;
            return;
        }
        _ => b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".to_vec(),
    };
    let _ = stream.write_all(&response).await;
    let _ = stream.flush().await;
}

/// Plain http to 127.0.0.1 only, images, small limits.
fn loopback_policy() -> FetchPolicy {
    let mut policy = FetchPolicy::new(LIMIT);
    policy.allow_http = true;
    policy.allowed_networks = vec!["127.0.0.1/32".parse().unwrap()];
    policy.accept = vec!["image/*".to_owned(), "application/octet-stream".to_owned()];
    policy.timeout = Duration::from_secs(2);
    policy
}

async fn get(policy: FetchPolicy, url: &str) -> Result<mrtd_fetch::Fetched, FetchError> {
    Fetcher::new(policy).unwrap().get(url).await
}

#[tokio::test]
async fn an_allowed_url_is_fetched_with_its_media_type() {
    let addr = server().await;
    for path in ["/photo.jpg", "/relative", "/absolute", "/photo.jpg#page=2"] {
        let fetched = get(loopback_policy(), &format!("http://{addr}{path}")).await.unwrap();
        assert_eq!(fetched.body, b"JPEG DATA", "{path}");
        assert_eq!(fetched.media_type.as_deref(), Some("image/jpeg"));
    }
    let untyped = get(loopback_policy(), &format!("http://{addr}/untyped")).await.unwrap();
    assert_eq!((untyped.body.as_slice(), untyped.media_type), (&b"DATA"[..], None));
}

#[tokio::test]
async fn loopback_is_refused_without_permission() {
    let addr = server().await;
    let mut policy = FetchPolicy::new(LIMIT);
    policy.allow_http = true;
    let error = get(policy, &format!("http://{addr}/photo.jpg")).await.unwrap_err();
    assert_eq!(error, FetchError::PrivateAddress("127.0.0.1".to_owned()));
    // By name: refused after resolving, before connecting.
    let error = get(FetchPolicy::new(LIMIT), "https://localhost:9/photo.jpg").await.unwrap_err();
    assert_eq!(error, FetchError::PrivateAddress("localhost".to_owned()));
    for url in ["https://169.254.169.254/", "https://[::1]/", "https://[::ffff:10.0.0.1]/"] {
        let error = get(FetchPolicy::new(LIMIT), url).await.unwrap_err();
        assert!(matches!(error, FetchError::PrivateAddress(_)), "{url}: {error}");
    }
}

#[tokio::test]
async fn every_redirect_is_checked_again() {
    let addr = server().await;
    for path in ["/to-private", "/to-metadata", "/to-other-loopback"] {
        let error = get(loopback_policy(), &format!("http://{addr}{path}")).await.unwrap_err();
        assert!(matches!(error, FetchError::PrivateAddress(_)), "{path}: {error}");
    }
    let error = get(loopback_policy(), &format!("http://{addr}/to-file")).await.unwrap_err();
    assert_eq!(error, FetchError::Scheme("file".to_owned()));
    let error = get(loopback_policy(), &format!("http://{addr}/loop")).await.unwrap_err();
    assert_eq!(error, FetchError::TooManyRedirects(3));
    let error = get(loopback_policy(), &format!("http://{addr}/no-location")).await.unwrap_err();
    assert_eq!(error, FetchError::BadRedirect);
    let mut none = loopback_policy();
    none.max_redirects = 0;
    let error = get(none, &format!("http://{addr}/relative")).await.unwrap_err();
    assert_eq!(error, FetchError::TooManyRedirects(0));
}

#[tokio::test]
async fn size_type_status_and_time_are_bounded() {
    let addr = server().await;
    let url = |path: &str| format!("http://{addr}{path}");
    assert_eq!(
        get(loopback_policy(), &url("/declared-big")).await.unwrap_err(),
        FetchError::TooLarge(LIMIT)
    );
    assert_eq!(
        get(loopback_policy(), &url("/chunked-big")).await.unwrap_err(),
        FetchError::TooLarge(LIMIT)
    );
    assert_eq!(
        get(loopback_policy(), &url("/page")).await.unwrap_err(),
        FetchError::MediaType("text/html".to_owned())
    );
    assert_eq!(
        get(loopback_policy(), &url("/missing")).await.unwrap_err(),
        FetchError::Status(404)
    );
    let started = std::time::Instant::now();
    assert_eq!(get(loopback_policy(), &url("/silent")).await.unwrap_err(), FetchError::Timeout(2));
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn fetches_beyond_the_allowed_number_wait_their_turn() {
    let addr = server().await;
    let mut policy = loopback_policy();
    policy.max_concurrent = 1;
    policy.timeout = Duration::from_secs(1);
    let fetcher = Fetcher::new(policy).unwrap();
    // One fetch holds the only turn on a silent server; the next cannot start before that
    // one gives up (after its one second), however fast its own server would answer.
    let (silent_url, photo_url) =
        (format!("http://{addr}/silent-turn"), format!("http://{addr}/photo.jpg"));
    let started = std::time::Instant::now();
    let (silent, waited) = tokio::join!(fetcher.get(&silent_url), async {
        // The second fetch starts once the silent server has the first one's request.
        while SILENT_TURNS_SEEN.load(std::sync::atomic::Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        let _ = fetcher.get(&photo_url).await;
        started.elapsed()
    });
    assert_eq!(silent.unwrap_err(), FetchError::Timeout(1));
    assert!(waited >= Duration::from_millis(950), "the second fetch waited: {waited:?}");
    // Once the turn is free again, a fetch goes through.
    assert!(fetcher.get(&photo_url).await.is_ok());
}

#[tokio::test]
async fn scheme_credentials_and_hosts_are_checked_first() {
    let addr = server().await;
    let error =
        get(FetchPolicy::new(LIMIT), &format!("http://{addr}/photo.jpg")).await.unwrap_err();
    assert_eq!(error, FetchError::Scheme("http".to_owned()));
    for url in ["ftp://example.com/a.jpg", "file:///etc/passwd", "data:image/png;base64,AAAA"] {
        let error = get(FetchPolicy::new(LIMIT), url).await.unwrap_err();
        assert!(matches!(error, FetchError::Scheme(_)), "{url}: {error}");
    }
    let error =
        get(FetchPolicy::new(LIMIT), "https://user:secret@example.com/a.jpg").await.unwrap_err();
    assert!(matches!(error, FetchError::BadUrl(_)), "{error}");
    let error = get(FetchPolicy::new(LIMIT), "not a url").await.unwrap_err();
    assert!(matches!(error, FetchError::BadUrl(_)), "{error}");

    let mut listed = loopback_policy();
    listed.allowed_hosts = vec!["photos.example.com".to_owned()];
    let error = get(listed.clone(), &format!("http://{addr}/photo.jpg")).await.unwrap_err();
    assert_eq!(error, FetchError::HostNotAllowed("127.0.0.1".to_owned()));
    listed.allowed_hosts.push("127.0.0.1".to_owned());
    assert!(get(listed, &format!("http://{addr}/photo.jpg")).await.is_ok());
}
