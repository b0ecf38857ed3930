import XCTest
import LarderJSON
@testable import LarderCore
import LarderStorage

// Helpers shared by the Object…/Schema…/Migration… tests.

/// Parses JSON text written in a test.
func json(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSON {
    do {
        return try JSONParser.parse(text)
    } catch {
        XCTFail("test JSON does not parse: \(error): \(text)", file: file, line: line)
        return .null
    }
}

/// A `TypeSchema` read from a definition written as JSON text (`{"fields":…, "migrations":…}`).
func typeSchema(_ type: String, _ version: String, _ definition: String) throws -> TypeSchema {
    try TypeSchema(type: type, version: version, definition: json(definition))
}

/// A version known to be valid.
func ver(_ text: String) -> SchemaVersion { SchemaVersion(text)! }

extension Store {
    /// Registers `type` `version` from a definition written as JSON text; true when it was new.
    @discardableResult
    func register(_ type: String, _ version: String, _ definition: String) throws -> Bool {
        try register(typeSchema(type, version, definition))
    }

    /// The registered version texts of a type, oldest first.
    func versionTexts(of type: String) throws -> [String] {
        try versions(of: type).map(\.version.text)
    }
}

extension Cache {
    /// Stores an object given as JSON text under (`group`, `key`).
    @discardableResult
    func putObject(_ key: String, _ type: String, _ value: String, group: String = "g") throws -> StoredObject {
        try putObject(EntryKey(group: group, key: key), type: type, value: json(value), ttl: nil)
    }

    func readObject(_ key: String, group: String = "g", answers: [String: CallbackAnswer] = [:],
                    writeBack: Bool = true) throws -> ObjectRead {
        try readObject(EntryKey(group: group, key: key), answers: answers, writeBack: writeBack)
    }

    /// The stored tagged object as it is on record, without migrating it.
    func rawObject(_ key: String, group: String = "g") throws -> StoredObject? {
        guard case .single(let object)? = try storedContent(EntryKey(group: group, key: key))?.0 else { return nil }
        return object
    }

    /// The stored bytes, untouched.
    func rawBytes(_ key: String, group: String = "g") throws -> [UInt8]? {
        try get(EntryKey(group: group, key: key))?.entry.bytes
    }
}

extension ObjectRead {
    var currentObject: StoredObject? {
        if case .current(let o) = self { return o }
        return nil
    }

    var migratedObject: StoredObject? {
        if case .migrated(let o, _) = self { return o }
        return nil
    }

    var migratedFrom: SchemaVersion? {
        if case .migrated(_, let from) = self { return from }
        return nil
    }

    var callbackRequest: CallbackRequest? {
        if case .needsCallback(let r) = self { return r }
        return nil
    }

    var isNotFound: Bool {
        if case .notFound = self { return true }
        return false
    }
}

/// Asserts that `body` throws exactly `expected`.
func assertStoreError(_ expected: StoreError, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
    do {
        try body()
        XCTFail("expected \(expected), nothing was thrown", file: file, line: line)
    } catch let e as StoreError {
        XCTAssertEqual(e, expected, file: file, line: line)
    } catch {
        XCTFail("expected \(expected), got \(error)", file: file, line: line)
    }
}

/// Asserts that `body` throws `.invalidObject` at `path`, with a reason equal to `reason` when given.
func assertInvalidObject(path: String, reason: String? = nil, file: StaticString = #filePath, line: UInt = #line,
                         _ body: () throws -> Void) {
    do {
        try body()
        XCTFail("expected invalidObject(\(path)), nothing was thrown", file: file, line: line)
    } catch let StoreError.invalidObject(p, r) {
        XCTAssertEqual(p, path, file: file, line: line)
        if let reason { XCTAssertEqual(r, reason, file: file, line: line) }
    } catch {
        XCTFail("expected invalidObject(\(path)), got \(error)", file: file, line: line)
    }
}

/// Asserts that `body` throws `.migrationFailed` and returns it (nil otherwise).
@discardableResult
func assertMigrationFailed(file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void)
    -> (key: String, type: String, from: String, to: String, reason: String)?
{
    do {
        try body()
        XCTFail("expected migrationFailed, nothing was thrown", file: file, line: line)
    } catch let StoreError.migrationFailed(key, type, from, to, reason) {
        return (key, type, from, to, reason)
    } catch {
        XCTFail("expected migrationFailed, got \(error)", file: file, line: line)
    }
    return nil
}

/// A store and an open cache for every test, and the schemas (and objects) a
/// suite sets up in `prepare`.
class ObjectStoreTestCase: StoreTestCase {
    var store: Store!
    var cache: Cache!

    /// Registers the suite's schemas before each test.
    func prepare() throws {}

    override func setUp() {
        super.setUp()
        do {
            store = try makeStore()
            cache = try openCache(store)
            try prepare()
        } catch {
            XCTFail("setUp: \(error)")
        }
    }

    override func tearDown() {
        cache = nil
        store = nil
        super.tearDown()
    }
}
