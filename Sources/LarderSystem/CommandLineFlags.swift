/// One option of an executable's command line, declared once: its parsing,
/// its line in the usage text and whether a recording's replay passes it on
/// all come from here.
public struct CommandLineFlag<Options>: Sendable {
    public let name: String
    /// Other spellings (`-h`), accepted and not shown.
    public let aliases: [String]
    /// What its value is called in the usage text (`DIR`); nil for a flag that takes none.
    public let value: String?
    public let help: String
    /// Whether `larder replay` passes it on to the server it starts: not
    /// what names where the store is or what is secret, which a replay
    /// chooses for itself.
    public let replayed: Bool
    let apply: @Sendable (inout Options, String) throws(UsageError) -> Void

    /// A flag that takes a value, handed to `apply` (which refuses it with a `UsageError`).
    public init(_ name: String, _ value: String, replayed: Bool = true, help: String,
                apply: @escaping @Sendable (inout Options, String) throws(UsageError) -> Void) {
        self.name = name
        self.aliases = []
        self.value = value
        self.help = help
        self.replayed = replayed
        self.apply = apply
    }

    /// A flag that takes no value.
    public init(_ name: String, aliases: [String] = [], replayed: Bool = true, help: String,
                apply: @escaping @Sendable (inout Options) -> Void) {
        self.name = name
        self.aliases = aliases
        self.value = nil
        self.help = help
        self.replayed = replayed
        self.apply = { options, _ in apply(&options) }
    }
}

/// A command line refused, with what was wrong.
public struct UsageError: Error {
    public let message: String

    public init(message: String) {
        self.message = message
    }
}

/// An executable's flags, in the order its usage text lists them.
public struct CommandLineFlags<Options>: Sendable {
    public let flags: [CommandLineFlag<Options>]

    public init(_ flags: [CommandLineFlag<Options>]) {
        self.flags = flags
    }

    /// Applies `arguments` to `options` flag by flag, and returns those a
    /// replay passes on. Stops early, with the rest unread, once `done`
    /// holds (after `--help`, say). An unknown argument is refused naming
    /// the flag `suggestion` finds nearest to it, if any.
    public func parse(_ arguments: [String], into options: inout Options, until done: (Options) -> Bool = { _ in false },
                      suggestion: (String, [String]) -> String? = { _, _ in nil }) throws(UsageError) -> [String] {
        var replayed: [String] = []
        var k = 0
        while k < arguments.count {
            let argument = arguments[k]
            guard let flag = flags.first(where: { $0.name == argument || $0.aliases.contains(argument) }) else {
                let nearest = suggestion(argument, flags.map(\.name)).map { " (did you mean \($0)?)" } ?? ""
                throw UsageError(message: "unknown argument \(argument)\(nearest)")
            }
            var value = ""
            if flag.value != nil {
                guard k + 1 < arguments.count else { throw UsageError(message: "\(argument) needs a value") }
                value = arguments[k + 1]
            }
            try flag.apply(&options, value)
            if flag.replayed { replayed += arguments[k...(flag.value == nil ? k : k + 1)] }
            if done(options) { break }
            k += flag.value == nil ? 1 : 2
        }
        return replayed
    }

    /// The flags and their help, one under another, each help wrapped to `width` columns.
    public func usage(width: Int = 80) -> String {
        let labels = flags.map { flag in flag.value.map { "\(flag.name) \($0)" } ?? flag.name }
        let column = 2 + labels.map(\.count).max()! + 2
        var lines: [String] = []
        for (label, flag) in zip(labels, flags) {
            var line = "  " + label + String(repeating: " ", count: column - 2 - label.count)
            var lineHasWords = false
            for word in flag.help.split(separator: " ") {
                if lineHasWords && line.count + 1 + word.count > width {
                    lines.append(line)
                    line = String(repeating: " ", count: column)
                    lineHasWords = false
                }
                line += (lineHasWords ? " " : "") + word
                lineHasWords = true
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
