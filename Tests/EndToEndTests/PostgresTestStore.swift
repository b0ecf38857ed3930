#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderPostgreSQL
import LarderTestSupport

/// A store on the test PostgreSQL server for one test: a schema of its own,
/// named at random, which `drop` removes with everything in it.
struct PostgresTestStore {
    let url: String
    let schema: String

    init(_ purpose: String) throws {
        url = try PostgresTestURL.value
        schema = "larder_\(purpose)_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
    }

    /// larder's arguments for a sidecar on this store.
    var arguments: [String] { ["--store", url, "--pg-schema", schema] }

    func drop() {
        guard let admin = try? PostgresConnection(url) else { return }
        _ = try? admin.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
    }
}
