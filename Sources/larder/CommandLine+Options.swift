import LarderCore
import LarderJSON
import LarderPostgreSQL
import LarderRPC
import LarderServer
import LarderSystem

/// What the command line asked for.
enum Invocation {
    case serve(ServeOptions)
    case replay([String])
    case help
    case version
}

struct ServeOptions {
    var server = ServerOptions(storePath: nil)
    var inMemory = false
    var explicitStore: String?
    /// `--pg-schema NAME`: the schema of a store on PostgreSQL.
    var pgSchema: String?
    /// `--pg-coherence MODE`: how a store on PostgreSQL learns of other sidecars' commits.
    var pgCoherence: PostgresCoherence?
    /// Whether `--pg-timeout` was given (its value is in `server`).
    var pgTimeoutGiven = false
    var logLevel = Log.Level.warn
    /// Milliseconds since 1970 for a fixed clock (`--clock`).
    var clock: Int64?
    /// `--record FILE`, and the arguments a replay of the recording needs.
    var recordPath: String?
    var replayArguments: [String] = []
    /// `--key-file PATH`: read when the server starts (else `$LARDER_KEY_FILE`).
    var keyFile: String?
}

extension Invocation {
    /// What the flags have made of the command line so far.
    struct Parsed {
        var options = ServeOptions()
        /// Set by `--help` and `--version`, which end the parsing.
        var instead: Invocation?
    }

    static let flags = CommandLineFlags<Parsed>([
        CommandLineFlag("--store", "DIR|URL", replayed: false, help: """
            The store: a directory (default: $LARDER_STORE, else $XDG_CACHE_HOME/larder, else ~/.cache/larder), \
            or a PostgreSQL URL, postgresql://USER@HOST:PORT/DB?OPTIONS (also postgres://), for a store shared by \
            every sidecar that names the same database and schema; what the URL leaves out comes from libpq's \
            PG* variables (postgresql:// alone, or ?service=NAME). A URL of another scheme is refused: a \
            directory whose name starts like one is ./NAME://...
            """) { p, text throws(UsageError) in
            if let why = StoreLocation.unknownScheme(text, from: "--store") { throw UsageError(message: why) }
            p.options.explicitStore = text
        },
        CommandLineFlag("--pg-schema", "NAME", replayed: false, help: """
            The schema of a store on PostgreSQL (default: larder; not public, information_schema or pg_...).
            """) { p, text throws(UsageError) in
            guard !text.isEmpty else { throw UsageError(message: "--pg-schema needs a schema name") }
            if let why = PostgresStore.schemaRefusal(text) { throw UsageError(message: "--pg-schema: \(why)") }
            p.options.pgSchema = text
        },
        CommandLineFlag("--pg-coherence", "MODE", replayed: false, help: """
            How a store on PostgreSQL learns of other sidecars' writes before answering from memory: strict \
            (each burst asks: never stale), notify (LISTEN/NOTIFY, no round trip) or poll (asks every 50 ms \
            at most). Default: strict.
            """) { p, text throws(UsageError) in
            switch StoreLocation.coherence(named: text) {
            case .success(let c): p.options.pgCoherence = c
            case .failure(let e): throw UsageError(message: "--pg-coherence \(e.message)")
            }
        },
        CommandLineFlag("--pg-timeout", "SECONDS", replayed: false, help: """
            The longest a request waits for PostgreSQL (a decimal, 0.1 to 3600; default: 5). A server silent \
            past it is taken as unreachable: -31003, and larder connects again without holding other requests.
            """) { p, text throws(UsageError) in
            guard let seconds = Double(text), seconds >= 0.1, seconds <= 3600 else {
                throw UsageError(message: "--pg-timeout must be a number of seconds from 0.1 to 3600, not \(text)")
            }
            p.options.server.pgTimeout = .milliseconds(Int64((seconds * 1000).rounded()))
            p.options.pgTimeoutGiven = true
        },
        CommandLineFlag("--memory", help: "Keep everything in memory; nothing is written.") { p in
            p.options.inMemory = true
        },
        CommandLineFlag("--log-level", "LEVEL", help: "error, warn, info or debug (default: warn). Logs go to stderr.") {
            p, name throws(UsageError) in
            guard let level = Log.Level(name: name) else {
                throw UsageError(message: "--log-level must be error, warn, info or debug, not \(name)")
            }
            p.options.logLevel = level
        },
        CommandLineFlag("--max-message-bytes", "N", help: "Largest accepted message (default: 67108864).") {
            p, text throws(UsageError) in
            guard let n = Int(text), n > 0 else { throw UsageError(message: "--max-message-bytes must be a positive integer, not \(text)") }
            p.options.server.maxMessageBytes = n
        },
        CommandLineFlag("--app-version", "V", help: """
            The app's version: caches written under another are wiped when first used (initialize's \
            appVersion overrides it).
            """) { p, text throws(UsageError) in
            guard !text.isEmpty else { throw UsageError(message: "--app-version needs a non-empty version") }
            p.options.server.appVersion = text
        },
        CommandLineFlag("--key-file", "PATH", replayed: false, help: """
            The key for encrypted caches: 64 hex digits, base64 of 32 bytes, or 32 raw bytes not all printable \
            (default: $LARDER_KEY_FILE). The file must be a regular file, not readable by its group or others.
            """) { p, text throws(UsageError) in
            guard !text.isEmpty else { throw UsageError(message: "--key-file needs a path") }
            p.options.keyFile = text
        },
        CommandLineFlag("--max-store-bytes", "N", help: """
            A disk budget for the whole store: past it, the least recently used entries of purgeable caches \
            are evicted (never those of durable stores).
            """) { p, text throws(UsageError) in
            guard let n = Int(text), n > 0 else { throw UsageError(message: "--max-store-bytes must be a positive integer, not \(text)") }
            p.options.server.maxStoreBytes = n
        },
        CommandLineFlag("--clock", "TIME", help: """
            Fix the clock at an RFC 3339 time; it moves only with debug.advanceClock (for tests).
            """) { p, text throws(UsageError) in
            guard let ms = Timestamp.parse(text) else {
                throw UsageError(message: "--clock needs an RFC 3339 time such as 2026-01-01T00:00:00Z, not \(text)")
            }
            p.options.clock = ms
        },
        CommandLineFlag("--require-initialize", help: "Refuse requests before initialize (-32002).") { p in
            p.options.server.requireInitialize = true
        },
        CommandLineFlag("--enable-test-methods", help: "Accept debug.* methods (for tests only).") { p in
            p.options.server.enableTestMethods = true
        },
        CommandLineFlag("--record", "FILE", replayed: false, help: """
            Append every message in both directions to FILE as a transcript (see protocol/transcripts). The \
            file is private to its owner, and keys, passwords and encrypted caches' entries are redacted.
            """) { p, path throws(UsageError) in
            p.options.recordPath = path
        },
        CommandLineFlag("--version", help: "Print the version and exit.") { p in p.instead = .version },
        CommandLineFlag("--help", aliases: ["-h"], help: "Print this help and exit.") { p in p.instead = .help },
    ])

    static let usage = """
        USAGE: larder [--store DIR | --store postgresql://... | --memory] [options]
               larder replay FILE|DIR...

        Serves JSON-RPC 2.0 on stdin/stdout: one JSON message per line, or
        LSP-style Content-Length framing when the input starts with it.

        OPTIONS:

        """ + flags.usage()

    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        if arguments.first == "replay" { return .replay(Array(arguments.dropFirst())) }
        var parsed = Parsed()
        parsed.options.replayArguments = try flags.parse(arguments, into: &parsed, until: { $0.instead != nil },
                                                         suggestion: NearestName.suggestion)
        if let instead = parsed.instead { return instead }
        let options = parsed.options
        if options.inMemory && options.explicitStore != nil {
            throw UsageError(message: "--store and --memory cannot be used together")
        }
        // A --pg-schema without --store is checked once $LARDER_STORE is read (StoreLocation).
        for (flag, given) in [("--pg-schema", options.pgSchema != nil), ("--pg-coherence", options.pgCoherence != nil),
                              ("--pg-timeout", options.pgTimeoutGiven)]
        where given && (options.inMemory || options.explicitStore.map(PostgresStore.isURL) == false) {
            throw UsageError(message: "\(flag) needs a store on PostgreSQL: --store postgresql://...")
        }
        return .serve(options)
    }
}
