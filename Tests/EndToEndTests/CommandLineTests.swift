import XCTest
import LarderJSON

final class CommandLineTests: XCTestCase {
    func testExecutableIsFound() {
        XCTAssertEqual(access(LarderProcess.executablePath, X_OK), 0, LarderProcess.executablePath)
    }

    func testHelpExitsZero() throws {
        let larder = try LarderProcess(["--help"])
        XCTAssertEqual(larder.waitForExit(), 0)
        let out = String(decoding: larder.readToEnd() ?? [], as: UTF8.self)
        XCTAssertTrue(out.contains("USAGE: larder"), out)
        XCTAssertTrue(out.contains("--max-message-bytes"), out)
    }

    func testShortHelpExitsZero() throws {
        let larder = try LarderProcess(["-h"])
        XCTAssertEqual(larder.waitForExit(), 0)
        XCTAssertTrue(String(decoding: larder.readToEnd() ?? [], as: UTF8.self).contains("USAGE"))
    }

    func testVersionExitsZero() throws {
        let larder = try LarderProcess(["--version"])
        XCTAssertEqual(larder.waitForExit(), 0)
        let out = String(decoding: larder.readToEnd() ?? [], as: UTF8.self)
        XCTAssertTrue(out.hasPrefix("larder "), out)
        XCTAssertTrue(out.contains("protocol"), out)
    }

    func testUncreatableStoreExitsTwo() throws {
        let larder = try LarderProcess(["--store", "/proc/larder-e2e-cannot-exist/store"])
        XCTAssertEqual(larder.waitForExit(), 2)
        let err = larder.stderrAtEnd()
        XCTAssertTrue(err.contains("store"), err)
        XCTAssertTrue(err.hasPrefix("larder: "), err)
        XCTAssertEqual(larder.readToEnd(), [], "nothing on stdout")
    }

    func testUsageErrorsExitTwo() throws {
        let cases: [[String]] = [
            ["--no-such-flag"],
            ["--store"],
            ["--memory", "--store", "/tmp/x"],
            ["--max-message-bytes", "0"],
            ["--max-message-bytes", "lots"],
            ["--log-level", "loud"],
        ]
        for arguments in cases {
            let larder = try LarderProcess(arguments)
            XCTAssertEqual(larder.waitForExit(), 2, "\(arguments)")
            let err = larder.stderrAtEnd()
            XCTAssertTrue(err.contains("USAGE"), "\(arguments): \(err)")
            XCTAssertEqual(larder.readToEnd(), [], "\(arguments): nothing on stdout")
        }
    }

    func testStoreFromTheEnvironment() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("larder-e2e-env-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let larder = try LarderProcess([], environment: ["LARDER_STORE": dir])
        XCTAssertEqual(larder.request("initialize")?["result"]?["store"]?["path"], .string(dir))
        assertCleanExit(larder)
    }

    func testTheBannerAtATerminalIsNotLabelledAnError() throws {
        let larder = try LarderProcess(["--memory"], terminalInput: true)
        XCTAssertNotNil(larder.request("cache.list"))
        endTerminalInput(larder)
        XCTAssertEqual(larder.waitForExit(), 0)
        let err = larder.stderrAtEnd()
        let lines = err.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, err)
        XCTAssertTrue(err.hasPrefix("larder "), err)
        XCTAssertFalse(err.hasPrefix("larder: "), "a banner has no level label: \(err)")
        XCTAssertTrue(err.contains("serving JSON-RPC on stdin/stdout, store: memory"), err)
        XCTAssertEqual(larder.readToEnd(), [], "the banner stays off stdout")
    }

    func testTheBannerIsLeftOutWhenOnlyErrorsAreLogged() throws {
        let larder = try LarderProcess(["--memory", "--log-level", "error"], terminalInput: true)
        XCTAssertNotNil(larder.request("cache.list"))
        endTerminalInput(larder)
        XCTAssertEqual(larder.waitForExit(), 0)
        XCTAssertEqual(larder.stderrAtEnd(), "")
    }

    /// Ctrl-D on an empty line: the terminal's end of input.
    private func endTerminalInput(_ larder: LarderProcess) {
        larder.send(bytes: [0x04])
    }
}
