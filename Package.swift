// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Larder",
    products: [
        .executable(name: "larder", targets: ["larder"]),
        // The modules the fuzz targets exercise (Fuzz/Package.swift), not a library to depend on.
        .library(name: "LarderModules", targets: ["LarderJSON", "LarderRPC", "LarderStorage", "LarderSQLite", "LarderCore", "LarderServer"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // OpenSSL's libcrypto: AES-256-GCM, HMAC-SHA-256 and randomness for encrypted caches.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // libpq's header, PostgreSQL's client library: the store shared by
        // sidecars on many hosts. Not linked: LarderPostgreSQL loads libpq
        // when such a store is opened (LibPQ.swift), so no pkgConfig here,
        // whose link flags would load it at every start.
        .systemLibrary(
            name: "CLibPQ",
            providers: [.apt(["libpq-dev"])]
        ),
        // What the system gives every module alike: child processes, the monotonic clock. Glibc only.
        .target(name: "LarderSystem"),
        // JSON values and the byte-level parser and writer.
        .target(name: "LarderJSON"),
        // JSON-RPC 2.0: framing, message model, connection, errors. Knows nothing of caches.
        .target(name: "LarderRPC", dependencies: ["LarderJSON", "LarderSystem"]),
        // The storage seam: what the core asks of a database (statements,
        // the write transaction, other writers, the layout's lock and
        // counter) and the one error type of the layers below the server.
        // Knows no engine, and nothing of caches.
        .target(name: "LarderStorage", dependencies: ["LarderJSON"]),
        // SQLite behind the seam: the embedded default engine, a store directory or memory.
        .target(name: "LarderSQLite", dependencies: ["CSQLite", "LarderStorage"]),
        // The persistence core. Knows nothing of JSON-RPC, nor of PostgreSQL:
        // a store there is a database `LarderPostgreSQL` opens behind the seam.
        .target(name: "LarderCore", dependencies: ["CCrypto", "LarderJSON", "LarderStorage", "LarderSQLite", "LarderSystem"]),
        // PostgreSQL through libpq, for the store shared by sidecars on many
        // hosts, behind the storage seam; it knows nothing of the core.
        .target(name: "LarderPostgreSQL", dependencies: ["CLibPQ", "LarderStorage"]),
        // Method handlers: decode params, call the core, encode results.
        .target(
            name: "LarderServer",
            dependencies: ["LarderJSON", "LarderRPC", "LarderStorage", "LarderCore", "LarderPostgreSQL"],
            // A link to protocol/openrpc.json, compiled in so rpc.discover needs no files at run time.
            resources: [.embedInCode("openrpc.json")]
        ),
        // Two symbols that would raise the glibc the self-contained larder
        // needs from 2.34 to 2.36, answered with older ones (.ci/dist).
        .target(name: "CGlibcCompat"),
        .executableTarget(name: "larder", dependencies: ["LarderServer", "LarderRPC", "LarderJSON", "LarderStorage", "LarderSystem", "CGlibcCompat"]),
        // LarderPostgreSQL: `--store postgresql://…` and its floor, Larder's statements through libpq.
        .executableTarget(name: "larder-bench", dependencies: ["CSQLite", "LarderJSON", "LarderStorage", "LarderSQLite", "LarderCore", "LarderPostgreSQL", "LarderSystem"]),

        // Helpers shared by test targets; no product depends on it.
        .target(name: "LarderTestSupport", dependencies: ["LarderSystem"], path: "Tests/LarderTestSupport"),
        .testTarget(name: "LarderSystemTests", dependencies: ["LarderSystem"]),
        .testTarget(name: "LarderJSONTests", dependencies: ["LarderJSON", "LarderTestSupport"]),
        .testTarget(name: "LarderRPCTests", dependencies: ["LarderRPC", "LarderJSON", "LarderTestSupport"]),
        .testTarget(name: "LarderCoreTests", dependencies: ["LarderStorage", "LarderSQLite", "LarderCore", "LarderPostgreSQL", "LarderJSON", "LarderTestSupport"]),
        .testTarget(name: "LarderServerTests", dependencies: ["LarderServer", "LarderStorage", "LarderCore", "LarderPostgreSQL", "LarderRPC", "LarderJSON", "LarderTestSupport", "larder"]),
        // CSQLite: the crash loops run SQLite's integrity check on the stores they crash; the
        // fault tests also hold the store's locks as another SQLite user would.
        .testTarget(name: "EndToEndTests", dependencies: ["LarderJSON", "LarderStorage", "LarderSQLite", "LarderCore", "LarderPostgreSQL", "CSQLite", "larder", "LarderSystem", "LarderTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// Release builds skip the run-time exclusivity checks (about a tenth of the
// instructions of a cache hit, measured with callgrind); debug builds, and so
// every test run, keep them and would catch a conflicting access.
for target in package.targets where target.type != .system && target.type != .test {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
}
