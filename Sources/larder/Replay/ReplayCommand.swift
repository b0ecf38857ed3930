#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderCore
import LarderJSON
import LarderPostgreSQL
import LarderRPC
import LarderServer
import LarderStorage

/// `larder replay [--store postgresql://...] FILE|DIR...`: plays transcripts
/// against fresh servers and reports the first mismatch of each with its
/// line number. Each server gets a store of its own: a temporary directory,
/// or with `--store` a schema of its own in that PostgreSQL database, dropped
/// afterwards.
enum ReplayCommand {
    static let timeout: Int32 = 10_000

    static func run(_ arguments: [String]) -> Int32 {
        var paths = arguments
        var server: String?
        if paths.first == "--store", paths.count > 1 {
            server = paths[1]
            paths.removeFirst(2)
            guard PostgresStore.isURL(server!) else {
                let why = StoreLocation.unknownScheme(server!, from: "--store").map { $0 + "\n" } ?? ""
                Main.say(why + "larder replay --store takes a postgresql:// URL; without it each transcript gets a directory of its own\n")
                return 2
            }
        }
        guard !paths.isEmpty else {
            Main.say("usage: larder replay [--store postgresql://...] FILE|DIR...\n")
            return 2
        }
        var files: [String] = []
        for p in paths { files += transcriptFiles(at: p) }
        guard !files.isEmpty else {
            Main.say("no .transcript files in \(paths.joined(separator: " "))\n")
            return 1
        }
        var failed = 0, left = 0
        for file in files {
            switch replay(file, on: server) {
            case .passed:
                Main.say("ok      \(file)\n")
            case .sqliteOnly(let why):
                left += 1
                Main.say("sqlite  \(file) (not on PostgreSQL: \(why))\n")
            case .failed(let failure):
                failed += 1
                Main.say("FAILED  \(file)\n\(failure)\n")
            }
        }
        Main.say("\(files.count - failed - left) passed, \(failed) failed" + (left > 0 ? ", \(left) for SQLite only" : "") + "\n")
        return failed == 0 ? 0 : 1
    }

    /// `path` itself if it is a file, else the `.transcript` files in it, sorted.
    static func transcriptFiles(at path: String) -> [String] {
        guard let dir = opendir(path) else { return [path] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name.hasSuffix(".transcript") { names.append(path + "/" + name) }
        }
        return names.sorted()
    }

    enum Outcome {
        case passed
        /// Left out of a replay on PostgreSQL, for this reason (its header's).
        case sqliteOnly(String)
        /// A readable account of the first failure.
        case failed(String)
    }

    static func replay(_ file: String, on server: String?) -> Outcome {
        guard let text = readFile(file) else { return .failed("  cannot read \(file)") }
        let transcript: Transcript
        do { transcript = try Transcript(text: text) } catch { return .failed("  \(file):\(error)") }
        if server != nil, let why = transcript.sqliteOnly { return .sqliteOnly(why) }
        var scratch = Array("/tmp/larder-replay-XXXXXX".utf8CString)
        guard let dirPointer = mkdtemp(&scratch) else { return .failed("  cannot create a temporary directory") }
        let tempDir = String(cString: dirPointer)
        defer { TemporaryDirectory.remove(tempDir) }
        // What every server gets: the store they share, and the key file.
        var shared: [String] = []
        var schema: String?
        let ownStore = transcript.arguments.contains("--memory") || transcript.arguments.contains("--store")
        if ownStore && transcript.processes.count > 1 {
            return .failed("  \(file): a transcript of several servers leaves their store to the replay (no --store or --memory)")
        }
        if !ownStore {
            if let server {
                schema = "larder_replay_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
                shared += ["--store", server, "--pg-schema", schema!]
            } else {
                shared += ["--store", tempDir + "/store"]
            }
        }
        if transcript.keyFile {
            let path = tempDir + "/key"
            guard writePrivateFile(path, RedactedKeys.key(0)) else { return .failed("  cannot write a key file in \(tempDir)") }
            shared += ["--key-file", path]
        }
        defer { if let server, let schema { dropSchema(schema, on: server) } }
        var arguments: [Character: [String]] = ["A": transcript.arguments + shared]
        for name in transcript.processes where name != "A" { arguments[name] = (transcript.processArguments[name] ?? []) + shared }
        return play(transcript, arguments: arguments, file: file, tempDir: tempDir).map { .failed($0) } ?? .passed
    }

    /// `initialize`'s answer without `store.coherence`, the one member a
    /// store on PostgreSQL adds (6.12): transcripts record stores in directories.
    private static func withoutPostgreSQLMembers(_ message: JSON) -> JSON {
        guard case .object(var o) = message, case .object(var result)? = o["result"],
              case .object(var store)? = result["store"], store["coherence"] != nil else { return message }
        store.members.removeAll { $0.key == "coherence" }
        result.members = result.members.map { $0.key == "store" ? ("store", .object(store)) : $0 }
        o.members = o.members.map { $0.key == "result" ? ("result", .object(result)) : $0 }
        return .object(o)
    }

    /// Removes a replay's schema and everything in it; says so when it cannot.
    private static func dropSchema(_ schema: String, on server: String) {
        do {
            let connection = try PostgresConnection(server)
            defer { connection.close() }
            _ = try connection.execute("DROP SCHEMA IF EXISTS \(SQLDialect.quoted(schema)) CASCADE")
        } catch {
            Main.say("warning: the replay's schema \(schema) is left on the server: \(error.responseError.message)\n")
        }
    }

    /// One server of a transcript, and where its answers stand after `<-- (none)`.
    private final class Peer {
        let name: Character
        let server: ServerProcess
        let stderrPath: String
        /// True until the next `-->` line is sent, then the ids of its
        /// requests, the only answer the next message may be.
        var awaitingNoneRequest = false
        var noneAnswerIDs: [RequestID]?

        init(_ name: Character, arguments: [String], tempDir: String) throws {
            self.name = name
            stderrPath = tempDir + (name == "A" ? "/stderr" : "/stderr-\(name)")
            server = try ServerProcess(path: ReplayCommand.selfPath(), arguments: arguments, stderrPath: stderrPath)
        }

        /// `message` for a failure, with the last lines this server wrote to stderr.
        func failure(_ message: String) -> String { message + ReplayCommand.stderrTail(stderrPath) }
    }

    /// Nil when the transcript passes, else a readable account of the first
    /// failure. The first server starts at once, every other one at its
    /// first line; at the end each has its input closed, in order of their
    /// names, and must then send nothing more and exit (the first with the
    /// transcript's exit code, the others with 0).
    private static func play(_ transcript: Transcript, arguments: [Character: [String]], file: String, tempDir: String) -> String? {
        var peers: [Character: Peer] = [:]
        func peer(_ name: Character) throws -> Peer {
            if let p = peers[name] { return p }
            let p = try Peer(name, arguments: arguments[name] ?? [], tempDir: tempDir)
            peers[name] = p
            return p
        }
        do {
            _ = try peer("A")
            let onPostgreSQL = arguments["A"]!.contains("--pg-schema")
            if let result = try play(transcript, peer: peer, file: file, onPostgreSQL: onPostgreSQL) {
                for p in peers.values { p.server.closeInput(); _ = p.server.waitForExit(timeoutMilliseconds: 2000) }
                return result
            }
            for name in peers.keys.sorted() {
                let p = peers[name]!
                p.server.closeInput()
                let label = peers.count > 1 ? "server \(name)" : "the server"
                // Timing out is what should happen: the server has nothing more to say.
                if let extra = try? p.server.nextMessage(framing: transcript.framing, timeoutMilliseconds: timeout) {
                    return "  after the last line: unexpected message from \(label): \(String(decoding: extra, as: UTF8.self))"
                }
                let code = p.server.waitForExit(timeoutMilliseconds: Int(timeout))
                let expected = name == "A" ? transcript.exitCode : 0
                if code != expected { return p.failure("  \(label) exited with code \(code), expected \(expected)") }
            }
            return nil
        } catch {
            return "  \(error)"
        }
    }

    private static func play(_ transcript: Transcript, peer: (Character) throws -> Peer, file: String, onPostgreSQL: Bool) throws -> String? {
        var keys = RedactedKeys()
        for step in transcript.steps {
            let p = try peer(step.process)
            let line = step.line
            let at = step.process == "A" ? "\(file):\(line)" : "\(file):\(line) (server \(step.process))"
            do {
                switch step.action {
                case .send(let recorded):
                    let text = keys.substituted(in: recorded)
                    if p.awaitingNoneRequest {
                        p.awaitingNoneRequest = false
                        let ids = requestIDs(in: text)
                        guard !ids.isEmpty else {
                            return "  \(at): after `<-- (none)` this line must send a request with an id, whose answer is the next message"
                        }
                        p.noneAnswerIDs = ids
                    }
                    var bytes = Array(text.utf8)
                    switch transcript.framing {
                    case .lines: bytes.append(0x0A)
                    case .contentLength: bytes = Array("Content-Length: \(bytes.count)\r\n\r\n".utf8) + bytes
                    }
                    try p.server.send(bytes)
                case .expectNone:
                    p.awaitingNoneRequest = true
                    p.noneAnswerIDs = nil
                case .expect(let text):
                    let expected: JSON
                    do { expected = try JSONParser.parse(text) } catch { return "  \(at): the expected message is not JSON: \(error)" }
                    guard let message = try p.server.nextMessage(framing: transcript.framing, timeoutMilliseconds: timeout) else {
                        return p.failure("  \(at): the server closed its output\n    expected: \(text)")
                    }
                    let actualText = String(decoding: message, as: UTF8.self)
                    guard let parsed = try? JSONParser.parse(message) else {
                        return p.failure("  \(at): the server sent something that is not JSON\n    actual:   \(actualText)")
                    }
                    let actual = onPostgreSQL ? withoutPostgreSQLMembers(parsed) : parsed
                    if let ids = p.noneAnswerIDs {
                        p.noneAnswerIDs = nil
                        if !answers(actual, anyOf: ids) {
                            let asked = ids.map(\.description).joined(separator: ", ")
                            return p.failure("  \(at): expected nothing before the answer to id \(asked), got\n    actual:   \(actualText)")
                        }
                    }
                    if let difference = JSONPattern.mismatch(expected: expected, actual: actual) {
                        return p.failure("  \(at): \(difference)\n    expected: \(text)\n    actual:   \(actualText)")
                    }
                }
            } catch {
                return p.failure("  \(at): \(error)")
            }
        }
        return nil
    }

    /// The ids of the requests a `-->` line sends (one, or a batch's).
    private static func requestIDs(in text: String) -> [RequestID] {
        // A line that is not JSON (sent to be refused with -32700) holds no request.
        guard let message = try? JSONParser.parse(Array(text.utf8)) else { return [] }
        return (message.arrayValue ?? [message]).compactMap { item in
            item["method"] == nil ? nil : item["id"].flatMap(RequestID.init)
        }
    }

    /// True when `message` is the answer to one of `ids`: a response, or a
    /// batch of responses, to them and nothing else.
    private static func answers(_ message: JSON, anyOf ids: [RequestID]) -> Bool {
        let items = message.arrayValue ?? [message]
        return !items.isEmpty && items.allSatisfy { item in
            item["method"] == nil && item["id"].flatMap(RequestID.init).map(ids.contains) == true
        }
    }

    static func stderrTail(_ path: String) -> String {
        guard let text = readFile(path), !text.isEmpty else { return "" }
        let lines = text.split(separator: "\n").suffix(10)
        return "\n  server stderr:\n" + lines.map { "    " + $0 }.joined(separator: "\n")
    }

    static func selfPath() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes `text` to a new file only its owner may read.
    private static func writePrivateFile(_ path: String, _ text: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count
    }

    static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            data.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Removal of the temporary directories replay creates.
enum TemporaryDirectory {
    static func remove(_ path: String) {
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name == "." || name == ".." { continue }
                remove(path + "/" + name)
            }
            closedir(dir)
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
