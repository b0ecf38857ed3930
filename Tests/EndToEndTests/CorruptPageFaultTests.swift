#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderTestSupport
import Foundation
import LarderJSON
import XCTest

/// Bytes of `larder.db` overwritten while no server runs. SQLite checks the
/// structure of every page it reads: a damaged page is -31001 with
/// SQLITE_CORRUPT, never a crash, and the server goes on serving. It keeps no
/// checksums, though: bytes changed inside a stored value, leaving the page's
/// structure intact, are served as they now are (SPEC 3.3 says so).
final class CorruptPageFaultTests: XCTestCase {
    private var store: TemporaryStore!
    private static let count = 2000
    private static let pageSize = 4096

    override func setUp() {
        store = temporaryStore("corrupt")
    }

    private static func key(_ i: Int) -> String { "key-\(i)" }
    private static func value(_ i: Int) -> String { "value-\(i)-" + String(repeating: "v", count: 150) }

    /// A closed store of `count` entries, all in `larder.db` (closing copies the log into it).
    private func makeStore() throws {
        let maker = try store.start()
        let burst = (0..<Self.count).map { i in
            JSON.object(["jsonrpc": "2.0", "id": .int(i), "method": "cache.set",
                         "params": ["key": .string(Self.key(i)), "value": .string(Self.value(i))]]).description
        }
        XCTAssertTrue(maker.send(burst.joined(separator: "\n")))
        for _ in 0..<Self.count { XCTAssertEqual(maker.readMessage()?["result"]?["stored"], true) }
        XCTAssertEqual(maker.endInput(), 0)
    }

    private func overwrite(at offset: Int, with bytes: [UInt8]) throws {
        let file = try XCTUnwrap(FileHandle(forUpdatingAtPath: store.database))
        defer { try? file.close() }
        try file.seek(toOffset: UInt64(offset))
        try file.write(contentsOf: bytes)
    }

    /// Sends a `cache.get` of every key in one burst; the answers by id.
    private func getEverything(_ larder: LarderProcess) -> [Int: JSON] {
        let burst = (0..<Self.count).map { i in
            JSON.object(["jsonrpc": "2.0", "id": .int(i), "method": "cache.get", "params": ["key": .string(Self.key(i))]]).description
        }
        XCTAssertTrue(larder.send(burst.joined(separator: "\n")))
        var answers: [Int: JSON] = [:]
        for _ in 0..<Self.count {
            guard let m = larder.readMessage(), let id = m["id"]?.numberValue?.int else { break }
            answers[id] = m
        }
        return answers
    }

    func testADamagedPageIsAStorageFailureNeverWrongDataOrACrash() throws {
        try makeStore()
        let pages = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: store.database)[.size] as? Int) / Self.pageSize
        // A page in the middle, overwritten with noise (the same noise every run).
        var noise = SeededRandom(seed: 7)
        try overwrite(at: pages / 2 * Self.pageSize, with: (0..<Self.pageSize).map { _ in UInt8(noise.int(0...255)) })
        XCTAssertNotEqual(StoreIntegrity.check(directory: store.path), ["ok"], "the page overwritten was not in use")

        let larder = try store.start()
        var damaged = 0
        for (i, answer) in getEverything(larder).sorted(by: { $0.key < $1.key }) {
            if let error = answer["error"] {
                XCTAssertEqual(error["code"], -31001, "\(answer)")
                XCTAssertEqual((error["data"]?["sqliteCode"]?.numberValue?.int ?? 0) & 0xFF, 11, "SQLITE_CORRUPT: \(answer)")
                damaged += 1
            } else {
                XCTAssertEqual(answer["result"]?["value"], .string(Self.value(i)), "served wrong: \(answer)")
            }
        }
        XCTAssertGreaterThan(damaged, 0, "no read met the damaged page")
        // A write meets it too, or succeeds; either way the server goes on.
        let write = larder.set("new", 1, id: "write")
        XCTAssertTrue(write?["result"]?["stored"] == true || write?.errorCode == -31001, "\(write.map(\.description) ?? "no response")")
        assertStillServing(larder)
        XCTAssertEqual(larder.endInput(), 0, larder.stderrText)
    }

    func testBytesChangedInsideAValueAreServedAsTheyAre() throws {
        try makeStore()
        // The same number of bytes, still a JSON string: nothing in SQLite's page structure changes.
        let target = Array(Self.value(1234).utf8)
        let data = try Data(contentsOf: URL(fileURLWithPath: store.database))
        let offset = try XCTUnwrap(data.range(of: Data(target))?.lowerBound)
        try overwrite(at: offset + target.count - 8, with: Array("CHANGED!".utf8))

        let larder = try store.start()
        let changed = String(Self.value(1234).dropLast(8)) + "CHANGED!"
        XCTAssertEqual(larder.get(Self.key(1234))?["result"]?["value"], .string(changed))
        XCTAssertEqual(larder.get(Self.key(1233), id: 2)?["result"]?["value"], .string(Self.value(1233)))
        XCTAssertEqual(larder.endInput(), 0)
        XCTAssertEqual(StoreIntegrity.check(directory: store.path), ["ok"], "integrity_check cannot see it either")
    }

    func testADamagedHeaderStopsTheServerAtStartSayingWhy() throws {
        try makeStore()
        try overwrite(at: 0, with: Array("not SQLite at all".utf8))

        let larder = try store.start()
        XCTAssertEqual(larder.waitForExit(), 2)
        let said = larder.stderrAtEnd()
        XCTAssertTrue(said.hasPrefix("larder: cannot open the store: storage failure: file is not a database"), said)
        XCTAssertEqual(larder.readToEnd(), [], "nothing on stdout")
    }
}
