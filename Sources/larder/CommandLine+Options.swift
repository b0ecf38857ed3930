import LarderCore
import LarderPostgreSQL
import LarderRPC
import LarderServer

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

struct UsageError: Error {
    let message: String
}

extension Invocation {
    static let usage = """
        USAGE: larder [--store DIR | --store postgresql://... | --memory] [options]
               larder replay FILE|DIR...

        Serves JSON-RPC 2.0 on stdin/stdout: one JSON message per line, or
        LSP-style Content-Length framing when the input starts with it.

        OPTIONS:
          --store DIR               Store directory (default: $LARDER_STORE, else
                                    $XDG_CACHE_HOME/larder, else ~/.cache/larder).
          --store postgresql://USER@HOST:PORT/DB?OPTIONS
                                    A store on PostgreSQL (also postgres://), shared by
                                    every sidecar that names the same database and
                                    schema; what the URL leaves out comes from libpq's
                                    PG* variables (postgresql:// alone, or ?service=NAME).
                                    A URL of another scheme is refused: a directory
                                    whose name starts like one is ./NAME://...
          --pg-schema NAME          The schema of a store on PostgreSQL (default: larder;
                                    not public, information_schema or pg_...).
          --pg-coherence MODE       How a store on PostgreSQL learns of other sidecars'
                                    writes before answering from memory: strict (each
                                    burst asks: never stale), notify (LISTEN/NOTIFY, no
                                    round trip) or poll (asks every 50 ms at most).
                                    Default: strict.
          --pg-timeout SECONDS      The longest a request waits for PostgreSQL (a
                                    decimal, 0.1 to 3600; default: 5). A server silent
                                    past it is taken as unreachable: -31003, and larder
                                    connects again without holding other requests.
          --memory                  Keep everything in memory; nothing is written.
          --log-level LEVEL         error, warn, info or debug (default: warn). Logs go to stderr.
          --max-message-bytes N     Largest accepted message (default: 67108864).
          --app-version V           The app's version: caches written under another
                                    are wiped when first used (initialize's appVersion
                                    overrides it).
          --key-file PATH           The key for encrypted caches: 64 hex digits, base64
                                    of 32 bytes, or 32 raw bytes not all printable
                                    (default: $LARDER_KEY_FILE). The file must be a
                                    regular file, not readable by its group or others.
          --max-store-bytes N       A disk budget for the whole store: past it, the least
                                    recently used entries of purgeable caches are evicted
                                    (never those of durable stores).
          --clock TIME              Fix the clock at an RFC 3339 time; it moves only
                                    with debug.advanceClock (for tests).
          --require-initialize      Refuse requests before initialize (-32002).
          --enable-test-methods     Accept debug.* methods (for tests only).
          --record FILE             Append every message in both directions to FILE
                                    as a transcript (see protocol/transcripts). The
                                    file is private to its owner, and keys, passwords
                                    and encrypted caches' entries are redacted.
          --version                 Print the version and exit.
          --help                    Print this help and exit.
        """

    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        if arguments.first == "replay" { return .replay(Array(arguments.dropFirst())) }
        var options = ServeOptions()
        var k = 0
        func value(_ flag: String) throws(UsageError) -> String {
            k += 1
            guard k < arguments.count else { throw UsageError(message: "\(flag) needs a value") }
            return arguments[k]
        }
        while k < arguments.count {
            let arg = arguments[k]
            let argumentStart = k
            switch arg {
            case "--help", "-h": return .help
            case "--record": options.recordPath = try value(arg)
            case "--version": return .version
            case "--store":
                let text = try value(arg)
                if let why = StoreLocation.unknownScheme(text, from: arg) { throw UsageError(message: why) }
                options.explicitStore = text
            case "--pg-schema":
                let text = try value(arg)
                guard !text.isEmpty else { throw UsageError(message: "--pg-schema needs a schema name") }
                if let why = PostgresStore.schemaRefusal(text) { throw UsageError(message: "--pg-schema: \(why)") }
                options.pgSchema = text
            case "--pg-coherence":
                switch StoreLocation.coherence(named: try value(arg)) {
                case .success(let c): options.pgCoherence = c
                case .failure(let e): throw UsageError(message: "--pg-coherence \(e.message)")
                }
            case "--pg-timeout":
                let text = try value(arg)
                guard let seconds = Double(text), seconds >= 0.1, seconds <= 3600 else {
                    throw UsageError(message: "--pg-timeout must be a number of seconds from 0.1 to 3600, not \(text)")
                }
                options.server.pgTimeout = .milliseconds(Int64((seconds * 1000).rounded()))
                options.pgTimeoutGiven = true
            case "--memory": options.inMemory = true
            case "--enable-test-methods": options.server.enableTestMethods = true
            case "--require-initialize": options.server.requireInitialize = true
            case "--log-level":
                let name = try value(arg)
                guard let level = Log.Level(name: name) else {
                    throw UsageError(message: "--log-level must be error, warn, info or debug, not \(name)")
                }
                options.logLevel = level
            case "--clock":
                let text = try value(arg)
                guard let ms = Timestamp.parse(text) else {
                    throw UsageError(message: "--clock needs an RFC 3339 time such as 2026-01-01T00:00:00Z, not \(text)")
                }
                options.clock = ms
            case "--app-version":
                let text = try value(arg)
                guard !text.isEmpty else { throw UsageError(message: "--app-version needs a non-empty version") }
                options.server.appVersion = text
            case "--key-file":
                let text = try value(arg)
                guard !text.isEmpty else { throw UsageError(message: "--key-file needs a path") }
                options.keyFile = text
            case "--max-store-bytes":
                let text = try value(arg)
                guard let n = Int(text), n > 0 else { throw UsageError(message: "--max-store-bytes must be a positive integer, not \(text)") }
                options.server.maxStoreBytes = n
            case "--max-message-bytes":
                let text = try value(arg)
                guard let n = Int(text), n > 0 else { throw UsageError(message: "--max-message-bytes must be a positive integer, not \(text)") }
                options.server.maxMessageBytes = n
            default:
                throw UsageError(message: "unknown argument \(arg)")
            }
            if !["--store", "--pg-schema", "--pg-coherence", "--pg-timeout", "--record", "--key-file"].contains(arg) {
                options.replayArguments += arguments[argumentStart...k]
            }
            k += 1
        }
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
