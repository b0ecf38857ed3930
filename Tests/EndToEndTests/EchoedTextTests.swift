import XCTest
import LarderJSON

/// An error repeats at most 200 bytes of any text the client sent, so that a
/// request with a 10 MB name gets a small answer, and the next one is served.
final class EchoedTextTests: XCTestCase {
    private let megabyte = String(repeating: "n", count: 1 << 20)
    /// What an echo of `megabyte` becomes.
    private var capped: String { String(repeating: "n", count: 200) + "…" }

    /// Sends `request` as one line; returns its answer after checking that it
    /// is small, then checks that the next request is served.
    private func answer(to request: String, in larder: LarderProcess, file: StaticString = #filePath, line: UInt = #line) -> JSON? {
        XCTAssertTrue(larder.send(request), file: file, line: line)
        guard let reply = larder.readLine(timeout: 60) else {
            XCTFail("no answer; stderr: \(larder.stderrText)", file: file, line: line)
            return nil
        }
        XCTAssertLessThan(reply.count, 4096, String(decoding: reply.prefix(600), as: UTF8.self), file: file, line: line)
        assertStillServing(larder, file: file, line: line)
        return try? JSONParser.parse(reply)
    }

    func testATenMegabyteMethodNameComesBackCapped() throws {
        let larder = try startLarder()
        let method = String(repeating: "x", count: 10 << 20)
        let reply = answer(to: #"{"jsonrpc":"2.0","id":1,"method":"\#(method)"}"#, in: larder)
        XCTAssertEqual(reply?["id"], 1)
        XCTAssertEqual(reply?.errorCode, -32601)
        XCTAssertEqual(reply?["error"]?["message"], .string("Method not found: " + String(repeating: "x", count: 200) + "…"))
        assertCleanExit(larder)
    }

    func testTheCapNeverSplitsACharacter() throws {
        let larder = try startLarder()
        let twoByte = answer(to: #"{"jsonrpc":"2.0","id":1,"method":"\#(String(repeating: "é", count: 600))"}"#, in: larder)
        XCTAssertEqual(twoByte?["error"]?["message"], .string("Method not found: " + String(repeating: "é", count: 100) + "…"))
        let threeByte = answer(to: #"{"jsonrpc":"2.0","id":2,"method":"\#(String(repeating: "€", count: 600))"}"#, in: larder)
        XCTAssertEqual(threeByte?["error"]?["message"], .string("Method not found: " + String(repeating: "€", count: 66) + "…"))
        assertCleanExit(larder)
    }

    func testAMegabyteMemberNameComesBackCapped() throws {
        let larder = try startLarder()
        let reply = answer(to: #"{"jsonrpc":"2.0","id":1,"method":"cache.get","params":{"key":"k","\#(megabyte)":1}}"#, in: larder)
        XCTAssertEqual(reply?.errorCode, -32602)
        let path = "params." + megabyte
        XCTAssertEqual(reply?["error"]?["message"], .string("Invalid params: unknown member " + String(path.prefix(200)) + "…"))
        XCTAssertEqual(reply?["error"]?["data"]?["path"], .string(String(path.prefix(200)) + "…"))
        XCTAssertEqual(reply?["error"]?["data"]?["expected"], ["cache", "group", "key"])
        assertCleanExit(larder)
    }

    /// Every other place an error repeats what the request named.
    func testNamesKeysAndValuesComeBackCapped() throws {
        let larder = try startLarder()
        let big = megabyte
        let cases: [(request: String, code: Int, data: String?)] = [
            (#""method":"object.describe","params":{"key":"\#(big)"}"#, -32803, "key"),
            (#""method":"object.copy","params":{"key":"\#(big)","toKey":"b"}"#, -32803, "key"),
            (#""method":"cache.stats","params":{"cache":"\#(big)"}"#, -31010, "cache"),
            (#""method":"schema.get","params":{"type":"\#(big)"}"#, -31021, "type"),
            (#""method":"entity.get","params":{"entity":"\#(big)","id":"x"}"#, -31040, "entity"),
            (#""method":"cache.clear","params":{"tier":"\#(big)"}"#, -32602, nil),
            (#""method":"migrate.run","params":{"onFailure":"\#(big)"}"#, -32602, nil),
            (#""method":"entity.apply","params":{"onMissing":"\#(big)"}"#, -32602, nil),
            (#""method":"entity.define","params":{"model":"M","entities":[{"name":"\#(big)"}]}"#, -32602, nil),
            (#""method":"entity.define","params":{"model":"M","casing":"\#(big)","entities":[]}"#, -32602, nil),
        ]
        for (id, c) in cases.enumerated() {
            let reply = answer(to: #"{"jsonrpc":"2.0","id":\#(id),\#(c.request)}"#, in: larder)
            XCTAssertEqual(reply?.errorCode, c.code, c.request.prefix(60) + "")
            let message = reply?["error"]?["message"]?.stringValue ?? ""
            XCTAssertTrue(message.hasSuffix("…") || message.contains("…"), "\(c.request.prefix(60)): \(message)")
            if let member = c.data {
                XCTAssertEqual(reply?["error"]?["data"]?[member], .string(capped), c.request.prefix(60) + "")
            }
        }
        assertCleanExit(larder)
    }
}
