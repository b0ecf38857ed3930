#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderJSON
import LarderRPC

/// `larder replay FILE|DIR...`: plays transcripts against fresh servers and
/// reports the first mismatch of each with its line number.
enum ReplayCommand {
    static let timeout: Int32 = 10_000

    static func run(_ paths: [String]) -> Int32 {
        guard !paths.isEmpty else {
            Main.say("usage: larder replay FILE|DIR...\n")
            return 2
        }
        var files: [String] = []
        for p in paths { files += transcriptFiles(at: p) }
        guard !files.isEmpty else {
            Main.say("no .transcript files in \(paths.joined(separator: " "))\n")
            return 1
        }
        var failed = 0
        for file in files {
            switch replay(file) {
            case nil:
                Main.say("ok      \(file)\n")
            case let failure?:
                failed += 1
                Main.say("FAILED  \(file)\n\(failure)\n")
            }
        }
        Main.say("\(files.count - failed) passed, \(failed) failed\n")
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

    /// Nil when the transcript passes, else a readable account of the first failure.
    static func replay(_ file: String) -> String? {
        guard let text = readFile(file) else { return "  cannot read \(file)" }
        let transcript: Transcript
        do { transcript = try Transcript(text: text) } catch { return "  \(file):\(error)" }
        var scratch = Array("/tmp/larder-replay-XXXXXX".utf8CString)
        guard let dirPointer = mkdtemp(&scratch) else { return "  cannot create a temporary directory" }
        let tempDir = String(cString: dirPointer)
        defer { TemporaryDirectory.remove(tempDir) }
        var arguments = transcript.arguments
        if !arguments.contains("--memory") && !arguments.contains("--store") {
            arguments += ["--store", tempDir + "/store"]
        }
        do {
            let server = try Subprocess(path: selfPath(), arguments: arguments, stderrPath: tempDir + "/stderr")
            let result = play(transcript, on: server, file: file)
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

    private static func play(_ transcript: Transcript, on server: Subprocess, file: String) -> String? {
        var requireResponseNext = false
        do {
            for step in transcript.steps {
                switch step {
                case .send(let text, _):
                    var bytes = Array(text.utf8)
                    switch transcript.framing {
                    case .lines: bytes.append(0x0A)
                    case .contentLength: bytes = Array("Content-Length: \(bytes.count)\r\n\r\n".utf8) + bytes
                    }
                    try server.send(bytes)
                case .expectNone:
                    requireResponseNext = true
                case .expect(let text, let line):
                    let expected: JSON
                    do { expected = try JSONParser.parse(text) } catch { return "  \(file):\(line): the expected message is not JSON: \(error)" }
                    guard let message = try server.nextMessage(framing: transcript.framing, timeoutMilliseconds: timeout) else {
                        return "  \(file):\(line): the server closed its output\n    expected: \(text)"
                    }
                    let actualText = String(decoding: message, as: UTF8.self)
                    guard let actual = try? JSONParser.parse(message) else {
                        return "  \(file):\(line): the server sent something that is not JSON\n    actual:   \(actualText)"
                    }
                    if requireResponseNext {
                        requireResponseNext = false
                        if actual["method"] != nil {
                            return "  \(file):\(line): expected nothing before the response, got\n    actual:   \(actualText)"
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
