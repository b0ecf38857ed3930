#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderJSON
import LarderRPC
import LarderServer
import LarderSystem

/// `--record FILE`: appends every message in both directions to FILE in
/// transcript format, so a real session becomes a regression test.
///
/// What another run cannot reproduce is written as a pattern: the server's
/// version and store path, and, on the system clock, the times the server
/// stamps on entries. Values the client sent are written as they were, but
/// for secrets (`RecordingRedaction`). The file is the owner's alone, as the
/// store's files are.
final class Recorder {
    private let fd: Int32
    private let redaction: RecordingRedaction
    /// With `--clock` the header's arguments give a replay the same clock, so times are kept exact.
    private let clockIsFixed: Bool
    /// The method of each request not answered yet: which members of an answer
    /// the server filled in depends on it.
    private var pendingMethods: [RequestID: String] = [:]
    private var wroteFirstMessage = false
    weak var connection: Connection?

    /// `keyFile`: the server read a key from a file, which the header says so
    /// that a replay gives its server one of its own. `store`: the store's
    /// location as given, whose password is never written.
    init(path: String, arguments: [String], clockIsFixed: Bool, keyFile: Bool, store: String?) throws(UsageError) {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw UsageError(message: "cannot open \(path) for --record: \(String(cString: strerror(errno)))") }
        // A file that was there already is made private too; a pipe or a
        // terminal (`--record /dev/stderr`) is left as it is.
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o077 != 0, fchmod(fd, 0o600) != 0 {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw UsageError(message: "cannot make \(path) private to its owner for --record: \(reason)")
        }
        self.clockIsFixed = clockIsFixed
        redaction = RecordingRedaction(keyFile: keyFile, storeText: store)
        var header = "// recorded by larder \(Version.larder)\n"
        if !arguments.isEmpty { header += "// args: \(arguments.joined(separator: " "))\n" }
        if keyFile { header += "// key-file: \(RecordingRedaction.marker)\n" }
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
        // A body that is not JSON (sent to be refused with -32700) is recorded as text, scrubbed below.
        var message = try? JSONParser.parse(body)
        if let original = message {
            var written: JSON
            switch direction {
            case .incoming:
                written = redaction.incoming(original)
                notePendingRequests(written)
            case .outgoing:
                written = redaction.outgoing(original)
                if let replayable = replayable(written) { written = replayable }
            }
            written = redaction.scrubbed(written, fromServer: direction == .outgoing)
            if written != original {
                text = written.description
                message = written
            }
        }
        // A transcript holds one message per line: re-encode a body that spans lines.
        if text.contains("\n") {
            text = message?.description ?? text.split(separator: "\n").joined(separator: " ")
        }
        if message == nil { text = redaction.scrubbed(text: text) }
        append((direction == .incoming ? "--> " : "<-- ") + text + "\n")
    }

    /// Remembers the method of each request in a message or batch from the client.
    private func notePendingRequests(_ message: JSON) {
        for item in message.arrayValue ?? [message] {
            guard case .string(let method)? = item["method"], let id = item["id"].flatMap(RequestID.init) else { continue }
            pendingMethods[id] = method
        }
    }

    /// An answer or batch of answers as a replay can match it, or nil when it
    /// can be written as sent.
    private func replayable(_ message: JSON) -> JSON? {
        guard case .array(let answers) = message else { return replayableAnswer(message) }
        var changed = false
        let rewritten = answers.map { answer in
            guard let replayable = replayableAnswer(answer) else { return answer }
            changed = true
            return replayable
        }
        return changed ? .array(rewritten) : nil
    }

    private func replayableAnswer(_ message: JSON) -> JSON? {
        guard case .object(var answer) = message, answer["method"] == nil,
              let id = answer["id"].flatMap(RequestID.init),
              let method = pendingMethods.removeValue(forKey: id),
              case .object(var result)? = answer["result"] else { return nil }
        switch method {
        case "initialize":
            Self.hideRunValues(of: &result)
        case "cache.get" where !clockIsFixed:
            Self.hideClockTimes(ofEntry: &result)
        case "cache.getMany" where !clockIsFixed:
            guard case .object(var entries)? = result["entries"] else { return nil }
            for k in entries.members.indices {
                guard case .object(var entry) = entries.members[k].value else { continue }
                Self.hideClockTimes(ofEntry: &entry)
                entries.members[k].value = .object(entry)
            }
            result["entries"] = .object(entries)
        default:
            // Other results hold no time from the system clock: entity and
            // object values carry the client's own dates, and
            // `debug.advanceClock` answers only under `--clock`, whose times
            // a replay repeats.
            return nil
        }
        answer["result"] = .object(result)
        return .object(answer)
    }

    /// The answer to `initialize` names this build's version and this run's
    /// store path; a replay runs another build on another path, so both match anything.
    private static func hideRunValues(of result: inout JSONObject) {
        guard case .object(var info)? = result["serverInfo"] else { return }
        info["version"] = "{...}"
        result["serverInfo"] = .object(info)
        if case .object(var store)? = result["store"], store["path"]?.isNull == false {
            store["path"] = "{...}"
            result["store"] = .object(store)
        }
    }

    /// A found entry's `storedAt` and `expiresAt` come from the clock when it
    /// was written; a replay runs at another time, so they match any time.
    /// Its `value` is the client's and stays as it is.
    private static func hideClockTimes(ofEntry entry: inout JSONObject) {
        for member in ["storedAt", "expiresAt"] where entry[member]?.stringValue != nil {
            entry[member] = "20[..]Z"
        }
    }

    private func append(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { _ = write(fd, $0.baseAddress, $0.count) }
    }
}
