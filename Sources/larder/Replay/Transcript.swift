import LarderRPC

/// A parsed `.transcript` file (format: protocol/transcripts/README.md).
struct Transcript {
    enum Step {
        /// Write this text to the server.
        case send(text: String, line: Int)
        /// The next message must match this JSON.
        case expect(text: String, line: Int)
        /// Nothing may arrive before the response to the next request.
        case expectNone(line: Int)
    }

    var arguments: [String] = []
    /// `// sqlite-only: why`: the transcript is about what only a store in a
    /// directory has (its path, its files); a replay on PostgreSQL leaves it
    /// out, saying why.
    var sqliteOnly: String?
    /// `// key-file: [redacted]`: the recorded server read its key from a
    /// file; the replay gives its server a key file of its own.
    var keyFile = false
    var framing = Framing.lines
    var exitCode: Int32 = 0
    var steps: [Step] = []

    struct FormatError: Error, CustomStringConvertible {
        let line: Int
        let message: String
        var description: String { "line \(line): \(message)" }
    }

    init(text: String) throws(FormatError) {
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Substring(raw)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty { continue }
            if trimmed.hasPrefix("//") {
                if steps.isEmpty { try header(trimmed.dropFirst(2).drop { $0 == " " }, line: lineNumber) }
                continue
            }
            if trimmed.hasPrefix("-->") {
                steps.append(.send(text: String(trimmed.dropFirst(3).drop { $0 == " " }), line: lineNumber))
            } else if trimmed.hasPrefix("<--") {
                let body = trimmed.dropFirst(3).drop { $0 == " " }
                if body == "(none)" {
                    steps.append(.expectNone(line: lineNumber))
                } else {
                    steps.append(.expect(text: String(body), line: lineNumber))
                }
            } else {
                throw FormatError(line: lineNumber, message: "expected a comment, '-->' or '<--'")
            }
        }
    }

    private mutating func header(_ text: Substring, line: Int) throws(FormatError) {
        if text.hasPrefix("args:") {
            arguments += text.dropFirst(5).split(separator: " ").map(String.init)
        } else if text.hasPrefix("sqlite-only:") {
            sqliteOnly = text.dropFirst(12).trimmingCharacters(in: " ")
        } else if text.hasPrefix("key-file:") {
            keyFile = true
        } else if text.hasPrefix("framing:") {
            let name = text.dropFirst(8).trimmingCharacters(in: " ")
            guard let f = Framing(rawValue: name) else { throw FormatError(line: line, message: "unknown framing \(name)") }
            framing = f
        } else if text.hasPrefix("exit-code:") {
            let value = text.dropFirst(10).trimmingCharacters(in: " ")
            guard let code = Int32(value) else { throw FormatError(line: line, message: "exit-code must be an integer") }
            exitCode = code
        }
    }
}

extension Substring {
    func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }
}
