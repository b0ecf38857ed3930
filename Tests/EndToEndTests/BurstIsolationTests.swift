import LarderJSON
import LarderTestSupport
import XCTest

/// Bursts sent in one write to a sidecar, valid writes interleaved with each
/// kind of invalid request that could reach SQL: every valid write is
/// acknowledged and found by the next sidecar, every invalid request gets
/// its error. On a store on PostgreSQL, where any failed statement aborts the
/// whole transaction, this holds because bad input is refused before it is
/// sent; on a store directory as well (`RequestIsolationTests` breaks
/// constraints there for real).
final class BurstIsolationTests: XCTestCase {
    func testEveryValidWriteOfABurstLastsOnAStoreDirectory() throws {
        let store = TemporaryStore("bursts")
        defer { store.remove() }
        try assertValidWritesLast(["--store", store.path])
    }

    func testEveryValidWriteOfABurstLastsOnPostgreSQL() throws {
        let store = try PostgresTestStore("bursts")
        defer { store.drop() }
        try assertValidWritesLast(store.arguments)
    }

    private func assertValidWritesLast(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        var random = SeededRandom(seed: 2711)
        var expected: [String: Int] = [:]
        let larder = try LarderProcess(arguments)
        XCTAssertNotNil(larder.request("cache.open", params: ["cache": "small", "disk": ["maxBytes": 64]])?["result"], file: file, line: line)
        for burst in 0..<8 {
            var lines: [String] = []
            var valid: [Int: (String, Int)] = [:]
            for n in 0..<30 {
                let id = 100 + n
                let key = "b\(burst)-r\(n)"
                let params: String
                switch random.int(0...7) {
                case 0:
                    params = #"{"model":"M\#(n)","entities":[{"name":"E\u0000\#(n)","attributes":{"id":"string"}}]}"#
                    lines.append(#"{"jsonrpc":"2.0","id":\#(id),"method":"entity.define","params":\#(params)}"#)
                    continue
                case 1:
                    // A key is bytes on either engine: U+0000 in one is no SQL name.
                    valid[id] = (key + "\u{0}", 1)
                    params = #"{"key":"\#(key)\u0000","value":1}"#
                case 2:
                    // Bigger than the cache's disk.maxBytes.
                    params = #"{"cache":"small","key":"\#(key)","value":"\#(String(repeating: "x", count: 100))"}"#
                case 3:
                    params = #"{"key":"\#(key)","value":1,"ttl":"soon"}"#
                default:
                    let value = random.int(0...999_999)
                    valid[id] = (key, value)
                    params = #"{"key":"\#(key)","value":\#(value)}"#
                }
                lines.append(#"{"jsonrpc":"2.0","id":\#(id),"method":"cache.set","params":\#(params)}"#)
            }
            XCTAssertTrue(larder.send(lines.joined(separator: "\n")), file: file, line: line)
            let answers = larder.readUntilResponse(id: .int(100 + lines.count - 1), timeout: 30, file: file, line: line)
            XCTAssertEqual(answers.count, lines.count, file: file, line: line)
            for (n, answer) in answers.enumerated() {
                if let (key, value) = valid[100 + n] {
                    XCTAssertNotNil(answer["result"], "a valid write in burst \(burst): \(answer)", file: file, line: line)
                    expected[key] = value
                } else {
                    XCTAssertEqual(answer["error"]?["code"], -32602, "an invalid request in burst \(burst): \(answer)", file: file, line: line)
                }
            }
        }
        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0, file: file, line: line)
        XCTAssertGreaterThan(expected.count, 80, file: file, line: line)

        let next = try LarderProcess(arguments)
        for (n, key) in expected.keys.sorted().enumerated() {
            let answer = next.request("cache.get", params: ["key": .string(key)], id: .int(n))
            XCTAssertEqual(answer?["result"]?["value"], .int(expected[key]!), "\(key) after a restart: \(answer.map(\.description) ?? "no answer")",
                           file: file, line: line)
        }
        next.closeStdin()
        XCTAssertEqual(next.waitForExit(), 0, file: file, line: line)
    }
}
