#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderJSON
import LarderRPC
import LarderServer

/// `--record FILE`: appends every message in both directions to FILE in
/// transcript format, so a real session becomes a regression test.
final class Recorder {
    private let fd: Int32
    private var wroteFirstMessage = false
    weak var connection: Connection?

    init(path: String, arguments: [String]) throws(UsageError) {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw UsageError(message: "cannot open \(path) for --record: \(String(cString: strerror(errno)))") }
        var header = "// recorded by larder \(Version.larder)\n"
        if !arguments.isEmpty { header += "// args: \(arguments.joined(separator: " "))\n" }
        append(header)
    }

    deinit { close(fd) }

    func record(_ direction: Connection.Direction, _ body: UnsafeBufferPointer<UInt8>) {
        if !wroteFirstMessage {
            wroteFirstMessage = true
            // The framing is known once the first message has been read.
            if connection?.framing == .contentLength { append("// framing: content-length\n") }
        }
        var text = String(decoding: body, as: UTF8.self)
        // A transcript holds one message per line: re-encode a body that spans lines.
        if text.contains("\n") {
            text = (try? JSONParser.parse(body).description) ?? text.split(separator: "\n").joined(separator: " ")
        }
        if direction == .outgoing && text.contains("\"serverInfo\"") { text = Self.withoutVolatileValues(text) }
        append((direction == .incoming ? "--> " : "<-- ") + text + "\n")
    }

    /// The answer to `initialize` names this build's version and this run's
    /// store path; a replay runs another build on another path, so both match anything.
    static func withoutVolatileValues(_ text: String) -> String {
        guard case .object(var message)? = try? JSONParser.parse(text),
              case .object(var result)? = message["result"],
              case .object(var info)? = result["serverInfo"] else { return text }
        info["version"] = "{...}"
        result["serverInfo"] = .object(info)
        if case .object(var store)? = result["store"], store["path"]?.isNull == false {
            store["path"] = "{...}"
            result["store"] = .object(store)
        }
        message["result"] = .object(result)
        return JSON.object(message).description
    }

    private func append(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { _ = write(fd, $0.baseAddress, $0.count) }
    }
}
