#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LarderCore
import LarderPostgreSQL
import LarderTestSupport
import XCTest
@testable import LarderServer

/// Serves `input` (request lines) on a fresh in-memory store with a fixed
/// clock, as `larder` would over its pipes, and returns what it wrote.
/// `prepare` may set the store up before the first request is read.
/// `onPostgreSQL`, the store is a fresh schema of the server the tests run
/// against (`PostgresTestURL`), dropped afterwards.
func serveSession(_ input: String, direct: Bool = true, requireInitialize: Bool = false, enableTestMethods: Bool = false,
                  onPostgreSQL: Bool = false, prepare: (Store) -> Void = { _ in }) throws -> String {
    let dir = NSTemporaryDirectory() + "larder-session-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let inPath = dir + "/in", outPath = dir + "/out"
    try Data(input.utf8).write(to: URL(fileURLWithPath: inPath))
    let inFD = open(inPath, O_RDONLY), outFD = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    defer { close(inFD); close(outFD) }
    var options = ServerOptions(storePath: nil)
    options.directAnswers = direct
    options.requireInitialize = requireInitialize
    options.enableTestMethods = enableTestMethods
    let clock = Clock(fixedAt: 1_767_225_600_000)
    let store: Store
    if onPostgreSQL {
        let url = try PostgresTestURL.value
        let schema = "larder_session_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        store = try StoreLocation.postgreSQL(url: url, schema: schema, coherence: .strict).open(clock: clock)
        defer { _ = try? PostgresConnection(url).execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        prepare(store)
        _ = LarderService.serve(options: options, store: store, input: inFD, output: outFD)
        store.close()
    } else {
        store = try Store(directory: nil, clock: clock)
        prepare(store)
        _ = LarderService.serve(options: options, store: store, input: inFD, output: outFD)
    }
    return try String(contentsOfFile: outPath, encoding: .utf8)
}

/// One request line.
func request(_ id: Int, _ method: String, _ params: String) -> String {
    #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#
}

/// Requests storing a `Note` (version 1) under each of `keys` (up to
/// seven), then registering version 2, which renames its field: every
/// object is one version behind, for `migrate.run`.
func notesBehindTheirSchema(_ keys: [String]) -> [String] {
    var setup = [request(1, "schema.register", #"{"type":"Note","version":"1","fields":{"title":"string"}}"#)]
    for (k, key) in keys.enumerated() {
        setup.append(request(2 + k, "object.put", #"{"key":"\#(key)","type":"Note","value":{"title":"\#(key)"}}"#))
    }
    setup.append(request(9, "schema.register", #"""
        {"type":"Note","version":"2","fields":{"name":"string"},"migrations":[{"from":"1","steps":[{"op":"rename","from":"title","to":"name"}]}]}
        """#))
    return setup
}

/// Serves `lines` with direct answers off and on and requires the same
/// output, byte for byte; returns it, one answer or notification a line.
@discardableResult
func assertBothPathsAgree(_ lines: [String], requireInitialize: Bool = false, enableTestMethods: Bool = false,
                          onPostgreSQL: Bool = false, prepare: (Store) -> Void = { _ in },
                          file: StaticString = #filePath, line: UInt = #line) throws -> [Substring] {
    let input = lines.joined(separator: "\n") + "\n"
    let ordinary = try serveSession(input, direct: false, requireInitialize: requireInitialize, enableTestMethods: enableTestMethods,
                                    onPostgreSQL: onPostgreSQL, prepare: prepare)
    let direct = try serveSession(input, direct: true, requireInitialize: requireInitialize, enableTestMethods: enableTestMethods,
                                  onPostgreSQL: onPostgreSQL, prepare: prepare)
    let a = ordinary.split(separator: "\n", omittingEmptySubsequences: false)
    let b = direct.split(separator: "\n", omittingEmptySubsequences: false)
    XCTAssertEqual(a.count, b.count, "answer count", file: file, line: line)
    for (k, (x, y)) in zip(a, b).enumerated() where x != y {
        XCTFail("answer \(k + 1) differs:\n ordinary: \(x)\n direct:   \(y)", file: file, line: line)
    }
    XCTAssertGreaterThan(a.count, lines.count / 2, "the session was answered", file: file, line: line)
    return b.filter { !$0.isEmpty }
}
