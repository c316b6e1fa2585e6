//! The stdio transport: one JSON-RPC message per line on stdin and stdout.
//!
//! rmcp does the protocol; this module is its transport, so that a line that is not JSON
//! gets a `-32700` reply instead of ending the connection, and so that nothing but
//! protocol messages ever reaches stdout. Each line is parsed once, into the protocol
//! layer's own message type, and handed to it as it is; only a line that does not read as
//! a message is looked at again, to answer it.

use std::future::Future;

use rmcp::{
    RoleServer, ServerHandler, ServiceExt,
    model::{ClientJsonRpcMessage, ClientRequest, ErrorData, ServerJsonRpcMessage},
    transport::{Transport, async_rw::JsonRpcMessageCodec},
};
use serde_json::Value;
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader},
    sync::mpsc,
};
use tokio_util::codec::Decoder;

use crate::jsonrpc::{self, INVALID_REQUEST, PARSE_ERROR};

/// Errors that end a stdio session.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StdioError {
    /// Reading stdin or writing stdout failed.
    #[error("stdio failed: {0}")]
    Io(#[from] std::io::Error),
    /// The protocol layer could not start.
    #[error("the MCP service could not start: {0}")]
    Start(String),
}

/// Largest accepted line: a 36 MiB body, as over HTTP. A longer line is answered with an
/// error (carrying its id when the id can be read) and the connection goes on.
pub const MAX_LINE_BYTES: usize = 36 * 1024 * 1024;

/// Messages parsed ahead of the protocol layer: reading waits while one is queued, so that
/// at most one line of the client's is held beyond what the protocol layer has taken.
const MESSAGES_AHEAD: usize = 1;

/// Lines queued for stdout.
const LINES_AHEAD: usize = 256;

/// Serves `handler` over `input`/`output` until `input` reaches end of file.
pub async fn serve<H, R, W>(handler: H, input: R, output: W) -> Result<(), StdioError>
where
    H: ServerHandler + Send + 'static,
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (line_tx, mut line_rx) = mpsc::channel::<String>(LINES_AHEAD);
    let (message_tx, message_rx) = mpsc::channel::<ClientJsonRpcMessage>(MESSAGES_AHEAD);
    let transport = LineTransport { messages: message_rx, lines: line_tx.clone() };
    // The handshake (or a modern request without one) arrives through the reader loop
    // below, so the service must start in its own task rather than be awaited here.
    let service = tokio::spawn(async move {
        match handler.serve(transport).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(error) => tracing::warn!(%error, "the MCP session over stdio ended early"),
        }
    });

    // Writer: the only task that touches `output`.
    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(line) = line_rx.recv().await {
            output.write_all(line.as_bytes()).await?;
            output.write_all(b"\n").await?;
            output.flush().await?;
        }
        Ok::<_, std::io::Error>(())
    });

    // Reader: reads each line and passes the messages to the protocol layer.
    let mut reader = BufReader::new(input);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        let n = read_line_limited(&mut reader, &mut buffer).await?;
        if n == 0 {
            break;
        }
        let line = trim_line(&buffer);
        if line.is_empty() {
            continue;
        }
        let incoming = if buffer.len() > MAX_LINE_BYTES {
            let reply = jsonrpc::error_body(
                leading_id(&buffer).unwrap_or(Value::Null),
                INVALID_REQUEST,
                &format!(
                    "Request too large: a message may be at most {} MiB",
                    MAX_LINE_BYTES / (1024 * 1024)
                ),
            );
            Incoming::Reply(reply.to_string())
        } else {
            read_message(line)
        };
        match incoming {
            Incoming::Message(message) => {
                if message_tx.send(*message).await.is_err() {
                    return Err(StdioError::Io(std::io::Error::new(
                        std::io::ErrorKind::BrokenPipe,
                        "the MCP session has ended",
                    )));
                }
            }
            Incoming::Reply(reply) => {
                let _ = line_tx.send(reply).await;
            }
            Incoming::Ignored => {}
        }
    }
    // End of input: close the protocol side and let pending replies drain.
    drop(message_tx);
    let _ = service.await;
    drop(line_tx);
    writer.await.map_err(|e| StdioError::Start(e.to_string()))??;
    Ok(())
}

/// rmcp's side of the pipes: the messages the reader parsed, and the lines for stdout.
struct LineTransport {
    messages: mpsc::Receiver<ClientJsonRpcMessage>,
    lines: mpsc::Sender<String>,
}

impl Transport<RoleServer> for LineTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let lines = self.lines.clone();
        let line = serde_json::to_string(&item);
        async move {
            let line = line.map_err(std::io::Error::from)?;
            lines.send(line).await.map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout is closed")
            })
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.messages.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.messages.close();
        Ok(())
    }
}

/// What one line of input comes to.
enum Incoming {
    /// A message for the protocol layer.
    Message(Box<ClientJsonRpcMessage>),
    /// A reply written here, without the protocol layer.
    Reply(String),
    /// Nothing: a line the protocol layer ignores (a notification it does not know).
    Ignored,
}

/// Reads one line (trimmed, not empty): parsed once into the protocol layer's message type
/// when it is one, and otherwise told apart on a second look to be answered.
fn read_message(line: &[u8]) -> Incoming {
    if line.first() == Some(&b'{')
        && let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(line)
    {
        return match invalid_params(&message) {
            Some(reply) => Incoming::Reply(reply),
            None => Incoming::Message(Box::new(message)),
        };
    }
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(message)) => {
            // Params the protocol layer cannot read are invalid params (as in `invalid_params`),
            // also where the rest of the message is not one it reads.
            if let (Some(hint), Some(id)) = (
                jsonrpc::unreadable_params(&message),
                message.get("id").filter(|id| id.is_string() || id.is_number()),
            ) {
                return Incoming::Reply(invalid_params_reply(id.clone(), hint));
            }
            not_a_message(line)
        }
        Ok(Value::Array(_)) => error_line(
            INVALID_REQUEST,
            "Invalid Request: JSON-RPC batches are not supported over stdio",
        ),
        Ok(_) => error_line(INVALID_REQUEST, "Invalid Request: expected a JSON object"),
        Err(_) => error_line(PARSE_ERROR, "Parse error: the line is not valid JSON"),
    }
}

/// The protocol layer reads a request whose params it cannot read as an unknown method,
/// and answers it so; for the methods whose params have a fixed shape, they are invalid
/// params, as over HTTP.
fn invalid_params(message: &ClientJsonRpcMessage) -> Option<String> {
    let ClientJsonRpcMessage::Request(request) = message else { return None };
    let ClientRequest::CustomRequest(custom) = &request.request else { return None };
    let hint = jsonrpc::params_hint(&custom.method)?;
    let id = serde_json::to_value(&request.id).unwrap_or(Value::Null);
    Some(invalid_params_reply(id, hint))
}

fn invalid_params_reply(id: Value, hint: &str) -> String {
    let message = format!("Invalid params: {hint}");
    jsonrpc::error_body(id, jsonrpc::INVALID_PARAMS, &message).to_string()
}

/// A JSON object that is not a message of the protocol layer's: what that layer's own
/// line transport makes of it (it ignores notifications it does not know, and answers
/// the rest as invalid requests).
fn not_a_message(line: &[u8]) -> Incoming {
    let mut bytes = bytes::BytesMut::from(line);
    match JsonRpcMessageCodec::<ClientJsonRpcMessage>::default().decode_eof(&mut bytes) {
        Ok(Some(message)) => Incoming::Message(Box::new(message)),
        Ok(None) => Incoming::Ignored,
        Err(_) => {
            let reply = ServerJsonRpcMessage::error(
                ErrorData::invalid_request("Invalid request", None),
                None,
            );
            Incoming::Reply(serde_json::to_string(&reply).unwrap_or_default())
        }
    }
}

/// Reads one line, keeping at most `MAX_LINE_BYTES + 1` bytes of it.
async fn read_line_limited<R: AsyncBufReadExt + Unpin>(
    reader: &mut R,
    buffer: &mut Vec<u8>,
) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(total);
        }
        let (chunk, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let room = (MAX_LINE_BYTES + 1).saturating_sub(buffer.len());
        buffer.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = chunk.len();
        total += used;
        reader.consume(used);
        if done {
            return Ok(total);
        }
    }
}

/// The `id` of a message of which only the beginning was kept, when the id comes before
/// the cut (it usually leads the message). Only a string or a number counts.
fn leading_id(prefix: &[u8]) -> Option<Value> {
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

    struct FindId<'a>(&'a mut Option<Value>);

    impl<'de> DeserializeSeed<'de> for FindId<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
            deserializer.deserialize_map(self)
        }
    }

    impl<'de> Visitor<'de> for FindId<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON-RPC message")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "id" {
                    let id: Value = map.next_value()?;
                    if id.is_string() || id.is_number() {
                        *self.0 = Some(id);
                    }
                    // Stop here: the rest of the message was cut off.
                    return Err(serde::de::Error::custom("found"));
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }

    let mut found = None;
    let mut deserializer = serde_json::Deserializer::from_slice(trim_line(prefix));
    let _ = FindId(&mut found).deserialize(&mut deserializer);
    found
}

fn trim_line(buffer: &[u8]) -> &[u8] {
    let start = buffer.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(buffer.len());
    let end = buffer.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(start, |i| i + 1);
    &buffer[start..end]
}

/// An error reply to a line whose id cannot be known.
fn error_line(code: i64, message: &str) -> Incoming {
    Incoming::Reply(jsonrpc::error_body(Value::Null, code, message).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    use tokio::io::{DuplexStream, Lines};

    #[derive(Clone)]
    struct Quiet;

    impl ServerHandler for Quiet {}

    /// A session over in-memory pipes: what the client writes, and the lines it reads.
    struct Session {
        input: DuplexStream,
        output: Lines<BufReader<DuplexStream>>,
        served: tokio::task::JoinHandle<Result<(), StdioError>>,
    }

    impl Session {
        async fn start() -> Session {
            let (input, server_input) = tokio::io::duplex(1 << 16);
            let (server_output, output) = tokio::io::duplex(1 << 16);
            let served = tokio::spawn(serve(Quiet, server_input, server_output));
            let mut session = Session { input, output: BufReader::new(output).lines(), served };
            let initialize = serde_json::json!({
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": { "name": "stdio-unit", "version": "1" }
                }
            });
            let answer = session.ask(initialize.to_string().as_bytes()).await;
            assert_eq!(answer["id"], 1, "{answer}");
            assert!(answer["result"]["protocolVersion"].is_string(), "{answer}");
            session.write(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
            session
        }

        async fn write(&mut self, line: &[u8]) {
            self.input.write_all(line).await.unwrap();
            self.input.write_all(b"\n").await.unwrap();
        }

        async fn ask(&mut self, line: &[u8]) -> Value {
            self.write(line).await;
            let read =
                tokio::time::timeout(std::time::Duration::from_secs(10), self.output.next_line());
            let line = read.await.expect("an answer in time").unwrap().expect("a line");
            serde_json::from_str(&line).expect("every line out is JSON")
        }

        /// The next answer is the one to a ping: nothing was written for what came before.
        async fn still_serving(&mut self, id: i64) {
            let ping = serde_json::json!({ "jsonrpc": "2.0", "id": id, "method": "ping" });
            let answer = self.ask(ping.to_string().as_bytes()).await;
            assert_eq!(answer, serde_json::json!({ "jsonrpc": "2.0", "id": id, "result": {} }));
        }

        async fn close(self) {
            drop(self.input);
            self.served.await.unwrap().unwrap();
        }
    }

    #[tokio::test]
    async fn lines_that_are_no_message_are_answered_here_and_the_session_goes_on() {
        let mut session = Session::start().await;
        let cases: [(&[u8], i64); 5] = [
            (b"{this is not json", PARSE_ERROR),
            (b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"\xff\"}", PARSE_ERROR),
            (b"[1, 2, 3]", INVALID_REQUEST),
            (b"\"ping\"", INVALID_REQUEST),
            // JSON, but no message the protocol layer reads: answered as it answers them.
            (br#"{"jsonrpc":"2.0","id":5}"#, INVALID_REQUEST),
        ];
        for (index, (line, code)) in cases.into_iter().enumerate() {
            let answer = session.ask(line).await;
            assert_eq!(answer["error"]["code"], code, "{answer}");
            assert!(answer["id"].is_null(), "{answer}");
            session.still_serving(100 + index as i64).await;
        }
        session.close().await;
    }

    #[tokio::test]
    async fn unreadable_params_are_invalid_params_with_the_request_id() {
        let mut session = Session::start().await;
        let no_name =
            br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"arguments":{}}}"#;
        let answer = session.ask(no_name).await;
        assert_eq!(answer["error"]["code"], jsonrpc::INVALID_PARAMS, "{answer}");
        assert_eq!(answer["id"], "a");
        // Also when the rest of the message is not one the protocol layer reads.
        let old = br#"{"jsonrpc":"1.0","id":3,"method":"resources/read","params":{}}"#;
        let answer = session.ask(old).await;
        assert_eq!(answer["error"]["code"], jsonrpc::INVALID_PARAMS, "{answer}");
        assert_eq!(answer["id"], 3);
        // A notification the protocol layer does not know gets no answer at all.
        session.write(br#"{"jsonrpc":"1.0","method":"made/up"}"#).await;
        session.still_serving(4).await;
        session.close().await;
    }

    #[test]
    fn the_id_of_a_cut_message_is_found_when_it_comes_first() {
        let cut = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"image_base64":"AAAA"#;
        assert_eq!(leading_id(cut), Some(Value::from(7)));
        let named = br#" {"method":"x","id":"abc","params":{"a":"#;
        assert_eq!(leading_id(named), Some(Value::from("abc")));
        let late = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"image"#;
        assert_eq!(leading_id(late), None);
        assert_eq!(leading_id(br#"{"id":{"x":1},"#), None);
        assert_eq!(leading_id(b"not json"), None);
    }
}
