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
        var arguments = transcript.arguments
        var schema: String?
        if !arguments.contains("--memory") && !arguments.contains("--store") {
            if let server {
                schema = "larder_replay_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
                arguments += ["--store", server, "--pg-schema", schema!]
            } else {
                arguments += ["--store", tempDir + "/store"]
            }
        }
        if transcript.keyFile {
            let path = tempDir + "/key"
            guard writePrivateFile(path, RedactedKeys.key(0)) else { return .failed("  cannot write a key file in \(tempDir)") }
            arguments += ["--key-file", path]
        }
        defer { if let server, let schema { dropSchema(schema, on: server) } }
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

    /// Removes a replay's schema and everything in it.
    private static func dropSchema(_ schema: String, on server: String) {
        guard let connection = try? PostgresConnection(server) else { return }
        _ = try? connection.execute("DROP SCHEMA IF EXISTS \(PostgresStoreSchema.quoted(schema)) CASCADE")
        connection.close()
    }

    /// Nil when the transcript passes, else a readable account of the first failure.
    private static func play(_ transcript: Transcript, arguments: [String], file: String, tempDir: String) -> String? {
        do {
            let server = try Subprocess(path: selfPath(), arguments: arguments, stderrPath: tempDir + "/stderr")
            let result = play(transcript, on: server, file: file, onPostgreSQL: arguments.contains("--pg-schema"))
            server.closeInput()
            if let result { _ = server.waitForExit(timeoutMilliseconds: 2000); return result + stderrTail(tempDir) }
            if let extra = try? server.nextMessage(framing: transcript.framing, timeoutMilliseconds: timeout) {
                return "  after the last line: unexpected message \(String(decoding: extra, as: UTF8.self))"
            }
            let code = server.waitForExit(timeoutMilliseconds: Int(timeout))
            if code != transcript.exitCode {
                return "  the server exited with code \(code), expected \(transcript.exitCode)" + stderrTail(tempDir)
            }
            return nil
        } catch {
            return "  \(error)"
        }
    }

    private static func play(_ transcript: Transcript, on server: Subprocess, file: String, onPostgreSQL: Bool) -> String? {
        // After `<-- (none)`: true until the next `-->` line is sent, then the
        // ids of its requests, the only answer the next message may be.
        var awaitingNoneRequest = false
        var noneAnswerIDs: [RequestID]?
        var keys = RedactedKeys()
        do {
            for step in transcript.steps {
                switch step {
                case .send(let recorded, let line):
                    let text = keys.substituted(in: recorded)
                    if awaitingNoneRequest {
                        awaitingNoneRequest = false
                        let ids = requestIDs(in: text)
                        guard !ids.isEmpty else {
                            return "  \(file):\(line): after `<-- (none)` this line must send a request with an id, whose answer is the next message"
                        }
                        noneAnswerIDs = ids
                    }
                    var bytes = Array(text.utf8)
                    switch transcript.framing {
                    case .lines: bytes.append(0x0A)
                    case .contentLength: bytes = Array("Content-Length: \(bytes.count)\r\n\r\n".utf8) + bytes
                    }
                    try server.send(bytes)
                case .expectNone:
                    awaitingNoneRequest = true
                    noneAnswerIDs = nil
                case .expect(let text, let line):
                    let expected: JSON
                    do { expected = try JSONParser.parse(text) } catch { return "  \(file):\(line): the expected message is not JSON: \(error)" }
                    guard let message = try server.nextMessage(framing: transcript.framing, timeoutMilliseconds: timeout) else {
                        return "  \(file):\(line): the server closed its output\n    expected: \(text)"
                    }
                    let actualText = String(decoding: message, as: UTF8.self)
                    guard let parsed = try? JSONParser.parse(message) else {
                        return "  \(file):\(line): the server sent something that is not JSON\n    actual:   \(actualText)"
                    }
                    let actual = onPostgreSQL ? withoutPostgreSQLMembers(parsed) : parsed
                    if let ids = noneAnswerIDs {
                        noneAnswerIDs = nil
                        if !answers(actual, anyOf: ids) {
                            let asked = ids.map(\.description).joined(separator: ", ")
                            return "  \(file):\(line): expected nothing before the answer to id \(asked), got\n    actual:   \(actualText)"
                        }
                    }
                    if let difference = JSONPattern.mismatch(expected: expected, actual: actual) {
                        return "  \(file):\(line): \(difference)\n    expected: \(text)\n    actual:   \(actualText)"
                    }
                }
            }
        } catch {
            return "  \(file): \(error)"
        }
        return nil
    }

    /// The ids of the requests a `-->` line sends (one, or a batch's).
    private static func requestIDs(in text: String) -> [RequestID] {
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

    private static func stderrTail(_ dir: String) -> String {
        guard let text = readFile(dir + "/stderr"), !text.isEmpty else { return "" }
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
