import XCTest
import LarderJSON

final class InitializeTests: XCTestCase {
    func testInitializeResultShape() throws {
        let larder = try startLarder()
        let response = larder.request("initialize", params: ["clientInfo": ["name": "e2e", "version": "1"]])
        XCTAssertEqual(response?["jsonrpc"], "2.0")
        XCTAssertEqual(response?["id"], 1)
        guard let result = response?["result"] else { return XCTFail("no result: \(String(describing: response))") }
        XCTAssertEqual(result["serverInfo"]?["name"], "larder")
        XCTAssertNotNil(result["serverInfo"]?["version"]?.stringValue)
        XCTAssertNotNil(result["protocolVersion"]?.stringValue)
        let methods = result["capabilities"]?["methods"]?.arrayValue ?? []
        XCTAssertTrue(methods.contains("initialize"), "\(methods)")
        XCTAssertTrue(methods.contains("shutdown"), "\(methods)")
        XCTAssertFalse(methods.contains("debug.ask"), "test methods are not advertised without --enable-test-methods")
        let framing = result["capabilities"]?["framing"]?.arrayValue ?? []
        XCTAssertTrue(framing.contains("lines") && framing.contains("content-length"), "\(framing)")
        XCTAssertEqual(result["capabilities"]?["limits"]?["maxMessageBytes"], 67_108_864)
        XCTAssertEqual(result["store"]?["persistent"], false)
        XCTAssertEqual(result["store"]?["path"], .null)
        assertCleanExit(larder)
    }

    func testLimitsReflectTheCommandLine() throws {
        let larder = try startLarder(["--max-message-bytes", "4096", "--enable-test-methods"])
        let result = larder.request("initialize")?["result"]
        XCTAssertEqual(result?["capabilities"]?["limits"]?["maxMessageBytes"], 4096)
        XCTAssertTrue(result?["capabilities"]?["methods"]?.arrayValue?.contains("debug.ask") ?? false)
        assertCleanExit(larder)
    }

    func testSecondInitializeIsInvalidRequest() throws {
        let larder = try startLarder()
        XCTAssertNotNil(larder.request("initialize", id: 1)?["result"])
        let second = larder.request("initialize", id: 2)
        XCTAssertEqual(second?["id"], 2)
        XCTAssertEqual(second?.errorCode, -32600)
        assertStillServing(larder)
        assertCleanExit(larder)
    }

    func testInitializeAfterAnotherRequestIsInvalidRequest() throws {
        let larder = try startLarder(["--enable-test-methods"])
        // debug.ask is a known method, so the server counts as running once it is served.
        XCTAssertEqual(larder.request("debug.ask", params: [:], id: 1)?.errorCode, -32602)
        XCTAssertEqual(larder.request("initialize", id: 2)?.errorCode, -32600)
        assertCleanExit(larder)
    }

    func testInitializeIsOptionalByDefault() throws {
        let larder = try startLarder()
        assertStillServing(larder, id: 1)
        assertStillServing(larder, id: 2)
        assertCleanExit(larder)
    }

    func testRequireInitializeRefusesRequestsBeforeInitialize() throws {
        let larder = try startLarder(["--require-initialize", "--enable-test-methods"])
        let early = larder.request("debug.ask", params: ["method": "x"], id: 1)
        XCTAssertEqual(early?.errorCode, -32002)
        XCTAssertEqual(early?["id"], 1)
        XCTAssertEqual(larder.request("shutdown", id: 2)?.errorCode, -32002)
        XCTAssertNotNil(larder.request("initialize", id: 3)?["result"])
        larder.notify("initialized")
        assertStillServing(larder, id: 4)
        assertCleanExit(larder)
    }

    func testInvalidInitializeParams() throws {
        let larder = try startLarder()
        let response = larder.request("initialize", params: ["clientInfo": "not an object"])
        XCTAssertEqual(response?.errorCode, -32602)
        XCTAssertTrue(response?["error"]?["message"]?.stringValue?.contains("params.clientInfo") ?? false,
                      "\(String(describing: response))")
        assertCleanExit(larder)
    }

    func testPersistentStoreInATemporaryDirectory() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("larder-e2e-\(UUID().uuidString)/store").path
        defer { try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent) }
        let larder = try LarderProcess(["--store", dir])
        let result = larder.request("initialize")?["result"]
        XCTAssertEqual(result?["store"]?["persistent"], true)
        XCTAssertEqual(result?["store"]?["path"], .string(dir))
        assertCleanExit(larder)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/larder.db"))
    }
}
