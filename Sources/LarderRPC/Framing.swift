/// How messages are delimited on the wire.
///
/// `lines`: each message is one line of UTF-8 JSON ending in LF (0x0A); a CR
/// (0x0D) just before the LF is dropped, and lines holding only whitespace are
/// ignored. JSON never needs a raw LF inside a message, so LF alone is the
/// delimiter.
///
/// `contentLength`: the Language Server Protocol's base protocol. Header lines
/// end in CRLF, `Content-Length` is required, other headers are ignored, an
/// empty line ends the header, and exactly that many bytes of body follow.
/// Chosen for the whole connection when its first bytes are `Content-Length:`.
public enum Framing: String, Sendable {
    case lines
    case contentLength = "content-length"
}
