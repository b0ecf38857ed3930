#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import XCTest
@testable import LarderCore
import LarderPostgreSQL
import LarderStorage

/// A fresh directory under /tmp, made with mkdtemp and removed by `remove()`.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/larder-core-tests-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed with errno \(errno)")
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Collects every event a store emits.
final class EventLog {
    var events: [CacheEvent] = []

    func attach(to store: Store) {
        store.onEvent = { [unowned self] in self.events.append($0) }
    }

    var evictions: [(key: String, group: String, tier: CacheEvent.Tier, reason: CacheEvent.Reason)] {
        events.compactMap {
            if case .evicted(_, let group, let key, let tier, let reason, _) = $0 { return (key, group, tier, reason) }
            return nil
        }
    }

    func evictedKeys(tier: CacheEvent.Tier, reason: CacheEvent.Reason = .capacity) -> [String] {
        evictions.filter { $0.tier == tier && $0.reason == reason }.map(\.key)
    }
}

/// The engine the core suites store on: SQLite, unless
/// `LARDER_TEST_ENGINE=postgresql` (then on `LARDER_TEST_PG_URL`, each test
/// in a schema of its own). `.ci/test` runs the suites that touch storage
/// on both.
enum TestEngine {
    static var isPostgreSQL: Bool { ProcessInfo.processInfo.environment["LARDER_TEST_ENGINE"] == "postgresql" }
}

/// Base class: a temporary directory per test, and stores that are closed
/// (then the directory removed) when the test ends. On PostgreSQL
/// (`TestEngine`), a persistent store is a schema of the test's own,
/// dropped when it ends: opened twice, it is the same store, as a directory is.
class StoreTestCase: XCTestCase {
    private(set) var directory: TemporaryDirectory!
    private var openedStores: [Store] = []
    private var schema: String?

    override func setUp() {
        super.setUp()
        directory = TemporaryDirectory()
    }

    override func tearDown() {
        for s in openedStores { s.close() }
        openedStores = []
        directory?.remove()
        directory = nil
        if let schema, let admin = try? PostgresConnection(try PostgresTestServer.url) {
            _ = try? admin.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        }
        schema = nil
        super.tearDown()
    }

    /// A store in this test's directory (or in memory with `inMemory`).
    func makeStore(clock: Clock = Clock(fixedAt: 1_000_000), inMemory: Bool = false) throws -> Store {
        let store: Store
        if TestEngine.isPostgreSQL && !inMemory {
            let name = schema ?? "larder_core_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
            schema = name
            store = try Store(PostgresStore.open(url: try PostgresTestServer.url, schema: name), clock: clock)
        } else {
            store = try Store(directory: inMemory ? nil : directory.path, clock: clock)
        }
        openedStores.append(store)
        return store
    }

    /// Opens `name` in `store` with the given settings.
    func openCache(_ store: Store, _ name: String = "c", _ configure: (inout CacheConfigChange) -> Void = { _ in }) throws -> Cache {
        var change = CacheConfigChange()
        configure(&change)
        return try store.open(name, change: change).cache
    }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

extension Cache {
    /// Stores `text` as data under (`group`, `key`).
    func put(_ key: String, _ text: String, group: String = "g", ttl: Int64? = nil, kind: Entry.Kind = .data) throws {
        try set([Write(key: EntryKey(group: group, key: key), kind: kind, bytes: Array(text.utf8), ttl: ttl)])
    }

    /// The value under (`group`, `key`) as text, nil on a miss.
    func text(_ key: String, group: String = "g") throws -> String? {
        try get(EntryKey(group: group, key: key)).map { String(decoding: $0.entry.bytes, as: UTF8.self) }
    }

    func lookup(_ key: String, group: String = "g") throws -> Lookup? {
        try get(EntryKey(group: group, key: key))
    }

    func contains(_ key: String, group: String = "g") throws -> Bool {
        try has(EntryKey(group: group, key: key)).found
    }

    func allKeys(group: String = "g", prefix: String = "") throws -> [String] {
        try keys(group: group, prefix: prefix, after: nil, limit: 1_000_000)
    }
}

/// Asserts that `body` throws `.invalidArgument` naming `field`.
func assertInvalidArgument(field: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
    do {
        try body()
        XCTFail("expected invalidArgument(\(field)), nothing was thrown", file: file, line: line)
    } catch let StoreError.invalidArgument(f, _) {
        XCTAssertEqual(f, field, file: file, line: line)
    } catch {
        XCTFail("expected invalidArgument(\(field)), got \(error)", file: file, line: line)
    }
}

/// Asserts that `body` refuses a member it does not know, at `path`, suggesting `suggestion`.
func assertUnknownMember(_ path: String, suggestion: String?, file: StaticString = #filePath, line: UInt = #line,
                         _ body: () throws -> Void) {
    do {
        try body()
        XCTFail("expected unknownMember(\(path)), nothing was thrown", file: file, line: line)
    } catch let StoreError.unknownMember(unknown) {
        XCTAssertEqual(unknown.path, path, file: file, line: line)
        XCTAssertEqual(unknown.suggestion, suggestion, file: file, line: line)
    } catch {
        XCTFail("expected unknownMember(\(path)), got \(error)", file: file, line: line)
    }
}

/// Makes every commit of `store` fail (or no longer), as a full disk or an
/// I/O error would: on SQLite through its commit hook; on PostgreSQL each
/// transaction's last write is a row whose deferred trigger raises at COMMIT.
func refuseCommits(_ store: Store, _ refuse: Bool) throws {
    if let sqlite = store.sqlite {
        sqlite.refuseCommits(refuse)
        return
    }
    if refuse {
        try store.database.execute("""
            CREATE TABLE IF NOT EXISTS commit_guard (n bigint);
            CREATE OR REPLACE FUNCTION refuse_commit() RETURNS trigger LANGUAGE plpgsql AS
                $$ BEGIN RAISE EXCEPTION 'commits are refused by the test'; END $$;
            DROP TRIGGER IF EXISTS refuse_commit ON commit_guard;
            CREATE CONSTRAINT TRIGGER refuse_commit AFTER INSERT ON commit_guard
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_commit();
            """)
        let guardian = CommitGuard(store.database)
        CommitGuard.installed[ObjectIdentifier(store)] = guardian
        store.transactions.observe(guardian)
    } else if let guardian = CommitGuard.installed.removeValue(forKey: ObjectIdentifier(store)) {
        store.transactions.stopObserving(guardian)
    }
}

/// Writes a row to `commit_guard` last in each transaction (see `refuseCommits`).
private final class CommitGuard: TransactionObserver {
    nonisolated(unsafe) static var installed: [ObjectIdentifier: CommitGuard] = [:]
    let database: any SQLConnection
    init(_ database: any SQLConnection) { self.database = database }
    func transactionWillCommit() throws(StoreError) { try database.execute("INSERT INTO commit_guard VALUES (1)") }
}

/// For a test of what only SQLite has (its files, pragmas and hooks): in
/// the pass on PostgreSQL (`TestEngine`) it is skipped, saying why; the
/// SQLite pass runs it.
func requireSQLite(_ why: String) throws {
    if TestEngine.isPostgreSQL { throw XCTSkip("SQLite's own: \(why)") }
}
