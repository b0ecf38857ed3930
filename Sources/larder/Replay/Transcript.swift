import LarderRPC

/// A parsed `.transcript` file (format: protocol/transcripts/README.md).
struct Transcript {
    enum Action {
        /// Write this text to the server.
        case send(text: String)
        /// The next message must match this JSON.
        case expect(text: String)
        /// Nothing may arrive before the response to the next request.
        case expectNone
    }

    /// One line's action, for the server it names: `A` (a line without a
    /// letter) or another capital, each a server of its own on the same store.
    struct Step {
        let action: Action
        let process: Character
        let line: Int
    }

    /// The first server's arguments (`// args:`).
    var arguments: [String] = []
    /// Each other server's (`// args B:`), besides the store all share.
    var processArguments: [Character: [String]] = [:]
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
            var process: Character = "A"
            var arrow = trimmed
            if let first = trimmed.first, Self.isProcessName(first), trimmed.dropFirst().hasPrefix("-->") || trimmed.dropFirst().hasPrefix("<--") {
                process = first
                arrow = trimmed.dropFirst()
            }
            if arrow.hasPrefix("-->") {
                steps.append(Step(action: .send(text: String(arrow.dropFirst(3).drop { $0 == " " })), process: process, line: lineNumber))
            } else if arrow.hasPrefix("<--") {
                let body = arrow.dropFirst(3).drop { $0 == " " }
                steps.append(Step(action: body == "(none)" ? .expectNone : .expect(text: String(body)), process: process, line: lineNumber))
            } else {
                throw FormatError(line: lineNumber, message: "expected a comment, '-->' or '<--' (or 'B-->', 'B<--' for another server)")
            }
        }
        for (name, _) in processArguments where !steps.contains(where: { $0.process == name }) {
            throw FormatError(line: 0, message: "'// args \(name):' names a server no line talks to")
        }
    }

    /// A capital letter names a server; `A` is the first, also written without it.
    static func isProcessName(_ c: Character) -> Bool { c.isASCII && c.isUppercase }

    /// The servers the transcript talks to, `A` first, in order of their names.
    var processes: [Character] {
        Array(Set(steps.map(\.process)).union(["A"])).sorted()
    }

    private mutating func header(_ text: Substring, line: Int) throws(FormatError) {
        if text.hasPrefix("args:") {
            arguments += text.dropFirst(5).split(separator: " ").map(String.init)
        } else if text.hasPrefix("args "), text.count >= 7, let name = text.dropFirst(5).first, Self.isProcessName(name),
                  text.dropFirst(6).hasPrefix(":") {
            guard name != "A" else { throw FormatError(line: line, message: "the first server's arguments are '// args:'") }
            processArguments[name, default: []] += text.dropFirst(7).split(separator: " ").map(String.init)
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
