import LarderJSON
import LarderPostgreSQL
import LarderSystem

/// What the command line asked for.
struct Options {
    var help = false
    var quick = false
    /// `--json`: JSON on stdout instead of the table.
    var jsonToStdout = false
    /// `--json-out PATH`: the table on stdout and JSON in PATH.
    var jsonPath: String?
    /// `--larder PATH`; by default the `larder` next to this executable.
    var larderPath: String?
    /// `--only a,b`: run only these parts (floors always run: ratios need them).
    var only: Set<String>?
    var opsOverride: Int?
    /// `--keys N`: keys stored and read by the get series and the storage floor's SELECT.
    var keysOverride: Int?
    /// Strict series run with the bench and its child on one CPU (`--no-pin` turns that off).
    var pinStrict = true
    var repsOverride: Int?
    /// `--store URL`: larder on a PostgreSQL server, a schema per series, against a floor on that server.
    var postgresURL: String?
    /// `--pg-coherence MODE`: how larder's sidecars on PostgreSQL learn of
    /// each other's writes (default notify: memory hits never wait for the server).
    var pgCoherence = "notify"

    static let parts = ["memory", "disk", "fetch", "set", "encryption", "mixed", "scale", "objects", "entities", "start", "coherence", "caches", "coordination"]
    /// Parts only a store on PostgreSQL has.
    static let partsOnlyOnPostgreSQL: [String: String] = [
        "coherence": "how soon one sidecar sees another's write: sidecars on a store directory share SQLite's file",
    ]

    /// The parts a run with `--store postgresql://…` leaves out, and why: what
    /// they measure is SQLite's, or larder's own work whatever holds the store.
    static let partsNotOnPostgreSQL: [String: String] = [
        "fetch": "a getOrFetch hit is a get (the memory and disk series), a miss the client's fetch",
        "encryption": "sealing is larder's CPU work, the same whatever holds the store",
        "mixed": "a mix of the get and set series' requests",
        "scale": "SQLite's file and page cache by store size, against SQLite floors",
        "start": "opening a store directory; on PostgreSQL a sidecar starts by connecting",
    ]

    static func count(_ flag: String, _ text: String) throws(UsageError) -> Int {
        guard let n = Int(text), n > 0 else { throw UsageError(message: "\(flag) needs a positive integer, not \(text)") }
        return n
    }

    static let flags = CommandLineFlags<Options>([
        CommandLineFlag("--quick", help: "A reduced run (under a minute; on PostgreSQL, about 70 s).") { $0.quick = true },
        CommandLineFlag("--json", help: "Print the figures as JSON instead of the table.") { $0.jsonToStdout = true },
        CommandLineFlag("--json-out", "PATH", help: "Also write the figures as JSON to PATH.") { o, path throws(UsageError) in
            o.jsonPath = path
        },
        CommandLineFlag("--larder", "PATH", help: "The larder executable (default: next to this one).") { o, path throws(UsageError) in
            o.larderPath = path
        },
        CommandLineFlag("--only", "PARTS", help: "Comma-separated subset of: \(parts.joined(separator: ", ")).") {
            o, text throws(UsageError) in
            let names = text.split(separator: ",").map(String.init)
            for n in names where !parts.contains(n) {
                throw UsageError(message: "--only knows \(parts.joined(separator: ", ")), not \(n)")
            }
            o.only = Set(names)
        },
        CommandLineFlag("--ops", "N", help: """
            Operations per series, objects migrate.run migrates and entity reads included (overrides the mode's).
            """) { o, text throws(UsageError) in o.opsOverride = try count("--ops", text) },
        CommandLineFlag("--reps", "N", help: "Repetitions per series (overrides the mode's).") { o, text throws(UsageError) in
            o.repsOverride = try count("--reps", text)
        },
        CommandLineFlag("--keys", "N", help: "Keys stored and read by the get series (default 10,000).") {
            o, text throws(UsageError) in o.keysOverride = try count("--keys", text)
        },
        CommandLineFlag("--store", "URL", help: """
            Larder's store on the PostgreSQL server URL names (postgresql://USER@HOST:PORT/DB; the role must be \
            allowed to create schemas there).
            """) { o, url throws(UsageError) in
            guard PostgresStore.isURL(url) else {
                throw UsageError(message: "--store takes a postgresql:// URL (SQLite stores are made in a temporary directory), not \(url)")
            }
            o.postgresURL = url
        },
        CommandLineFlag("--pg-coherence", "M", help: "larder's --pg-coherence on PostgreSQL: strict, notify (default) or poll.") {
            o, mode throws(UsageError) in
            guard PostgresCoherence(rawValue: mode) != nil else {
                throw UsageError(message: "--pg-coherence must be strict, notify or poll, not \(mode)")
            }
            o.pgCoherence = mode
        },
        CommandLineFlag("--no-pin", help: """
            Do not run strict series with the bench and its child pinned to one CPU (latencies then depend on \
            where the kernel wakes each process).
            """) { $0.pinStrict = false },
        CommandLineFlag("--help", aliases: ["-h"], help: "This text.") { $0.help = true },
    ])

    static let usage = """
        USAGE: larder-bench [--quick] [--json | --json-out PATH] [--larder PATH] [--only PARTS]
                            [--store postgresql://... [--pg-coherence MODE]]

        Drives the release larder over pipes and measures, in the same run, a pipe
        floor (a trivial responder) and a storage floor (SQLite in-process with
        Larder's schema and pragmas). Progress goes to stderr, the table to stdout.

        With --store postgresql://..., larder keeps its store on that PostgreSQL
        server (a fresh schema per series and repetition, dropped after it), and
        the storage floor is libpq running Larder's statements on that server in
        fresh schemas of Larder's tables, pipelined: one round trip per
        transaction of as many statements as the SQLite floor's, or per 1,000
        lookups (as many as larder has gets in flight). Only the memory,
        disk, set, objects, entities, caches, coordination and coherence parts run; the others are
        skipped, with the reason printed. The coherence part (PostgreSQL only)
        measures how long after one sidecar's acknowledged write another reads
        it, in each mode. For durable figures the server must keep
        fsync and synchronous_commit on:
          LARDER_TEST_PG_DURABLE=1 .ci/with-postgres sh -c \\
            '.build/release/larder-bench --store "$LARDER_TEST_PG_SOCKET_URL"'

        OPTIONS:

        """ + flags.usage()

    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var o = Options()
        _ = try flags.parse(arguments, into: &o, suggestion: NearestName.suggestion)
        return o
    }

    func wants(_ part: String) -> Bool { only?.contains(part) ?? true }

    var plan: Plan {
        var p = quick ? Plan.quick : Plan.full
        if let n = opsOverride { p.ops = n; p.bigWriteOps = n; p.strictOps = n; p.extraStrictOps = n; p.objects = n; p.entityReadOps = n }
        if let n = repsOverride { p.reps = n; p.strictReps = n; p.modelReps = n }
        if let n = keysOverride { p.readKeys = n }
        return p
    }
}
