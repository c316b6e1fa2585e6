//! The stdio transport: one JSON-RPC message per line on stdin and stdout.
//!
//! rmcp does the protocol; this module sits on both pipes so that a line that is not
//! JSON gets a `-32700` reply instead of ending the connection, and so that nothing
//! but protocol messages ever reaches stdout.

use rmcp::{ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader},
    sync::mpsc,
};

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

/// The protocol layer's own line limit, set above ours so that every line this module
/// passes on is read (its default, 16 MiB, would drop longer lines without a reply).
const PROTOCOL_LINE_BYTES: usize = MAX_LINE_BYTES + 1024;

/// Serves `handler` over `input`/`output` until `input` reaches end of file.
pub async fn serve<H, R, W>(handler: H, input: R, output: W) -> Result<(), StdioError>
where
    H: ServerHandler + Send + 'static,
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (to_protocol, protocol_input) = tokio::io::duplex(1 << 20);
    let (protocol_output, from_protocol) = tokio::io::duplex(1 << 20);
    // The handshake (or a modern request without one) arrives through the reader loop
    // below, so the service must start in its own task rather than be awaited here.
    let service = tokio::spawn(async move {
        let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(
            protocol_input,
            protocol_output,
        )
        .with_max_line_length(PROTOCOL_LINE_BYTES);
        match handler.serve(transport).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(error) => tracing::warn!(%error, "the MCP session over stdio ended early"),
        }
    });

    let (line_tx, mut line_rx) = mpsc::channel::<String>(256);

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

    // Protocol replies go to the writer line by line.
    let replies_tx = line_tx.clone();
    let relay = tokio::spawn(async move {
        let mut lines = BufReader::new(from_protocol).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if replies_tx.send(line).await.is_err() {
                break;
            }
        }
    });

    // Reader: checks each line and passes the good ones to the protocol layer.
    let mut to_protocol = to_protocol;
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
        if buffer.len() > MAX_LINE_BYTES {
            let reply = jsonrpc::error_body(
                leading_id(&buffer).unwrap_or(Value::Null),
                INVALID_REQUEST,
                &format!(
                    "Request too large: a message may be at most {} MiB",
                    MAX_LINE_BYTES / (1024 * 1024)
                ),
            );
            let _ = line_tx.send(reply.to_string()).await;
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(message)) => {
                // The protocol layer answers params it cannot read as an unknown method;
                // they are invalid params, as over HTTP.
                if let (Some(hint), Some(id)) = (
                    jsonrpc::unreadable_params(&message),
                    message.get("id").filter(|id| id.is_string() || id.is_number()),
                ) {
                    let reply = jsonrpc::error_body(
                        id.clone(),
                        jsonrpc::INVALID_PARAMS,
                        &format!("Invalid params: {hint}"),
                    );
                    let _ = line_tx.send(reply.to_string()).await;
                    continue;
                }
                to_protocol.write_all(line).await?;
                to_protocol.write_all(b"\n").await?;
            }
            Ok(Value::Array(_)) => {
                let _ = line_tx
                    .send(error_line(
                        INVALID_REQUEST,
                        "Invalid Request: JSON-RPC batches are not supported over stdio",
                    ))
                    .await;
            }
            Ok(_) => {
                let _ = line_tx
                    .send(error_line(INVALID_REQUEST, "Invalid Request: expected a JSON object"))
                    .await;
            }
            Err(_) => {
                let _ = line_tx
                    .send(error_line(PARSE_ERROR, "Parse error: the line is not valid JSON"))
                    .await;
            }
        }
    }
    // End of input: close the protocol side and let pending replies drain.
    drop(to_protocol);
    let _ = service.await;
    let _ = relay.await;
    drop(line_tx);
    writer.await.map_err(|e| StdioError::Start(e.to_string()))??;
    Ok(())
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
fn error_line(code: i64, message: &str) -> String {
    jsonrpc::error_body(Value::Null, code, message).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
