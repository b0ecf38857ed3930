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

    func testAMisspeltFlagIsRefusedNamingTheFlagMeant() throws {
        for (arguments, meant) in [(["--memroy"], "--memory"), (["--stor", "/tmp/x"], "--store"), (["--log_level", "info"], "--log-level")] {
            let larder = try LarderProcess(arguments)
            XCTAssertEqual(larder.waitForExit(), 2, "\(arguments)")
            let err = larder.stderrAtEnd()
            XCTAssertTrue(err.contains("unknown argument \(arguments[0]) (did you mean \(meant)?)"), "\(arguments): \(err)")
        }
    }

    func testStoreFromTheEnvironment() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("larder-e2e-env-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let larder = try LarderProcess([], environment: ["LARDER_STORE": dir])
        XCTAssertEqual(larder.request("initialize")?["result"]?["store"]?["path"], .string(dir))
        assertCleanExit(larder)
    }

    /// `mysql://…`, `postgresq://…`: taken for a directory, each once made
    /// `./mysql:/…` and stored there what a database was meant to hold.
    func testAStoreURLOfAnUnknownSchemeIsRefusedAndNothingIsMade() throws {
        let name = "larder-e2e-\(UUID().uuidString)"
        let made = ["postgresq:", "mysql:"]
        defer { for dir in made { try? FileManager.default.removeItem(atPath: dir + "/" + name); rmdir(dir) } }
        let cases: [(arguments: [String], environment: [String: String], expected: String)] = [
            (["--store", "postgresq://\(name)/x"], [:], "--store postgresq://\(name)/x is a postgresq:// URL, a scheme Larder does not know (did you mean postgresql://?)"),
            (["--store", "mysql://\(name)/x"], [:], "--store mysql://\(name)/x is a mysql:// URL, a scheme Larder does not know: "),
            ([], ["LARDER_STORE": "mysql://\(name)/x"], "$LARDER_STORE mysql://\(name)/x is a mysql:// URL"),
        ]
        for c in cases {
            let larder = try LarderProcess(c.arguments, environment: c.environment)
            _ = larder.send(#"{"jsonrpc":"2.0","id":1,"method":"cache.set","params":{"key":"k","value":1}}"#)
            larder.closeStdin()
            XCTAssertEqual(larder.waitForExit(), 2, "\(c)")
            let err = larder.stderrAtEnd()
            XCTAssertTrue(err.hasPrefix("larder: " + c.expected), err)
            XCTAssertEqual(larder.readToEnd(), [], "nothing on stdout: \(c)")
            for dir in made { XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/" + name), "\(c): no directory \(dir)/\(name)") }
        }
    }

    func testPostgreSQLsOwnSchemasAreRefused() throws {
        for schema in ["public", "Information_Schema", "pg_catalog"] {
            let larder = try LarderProcess(["--store", "postgresql://larder-e2e.invalid/x", "--pg-schema", schema])
            XCTAssertEqual(larder.waitForExit(), 2, schema)
            let err = larder.stderrAtEnd()
            XCTAssertTrue(err.hasPrefix("larder: --pg-schema: \(schema) is PostgreSQL's own (public, information_schema and pg_… are the database's, in any case)"), err)
            XCTAssertTrue(err.contains("USAGE"), err)
        }
    }

    func testADirectoryWhosePathOnlyContainsColonSlashSlashIsADirectory() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("larder-e2e-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = dir + "/mysql://app@db/x"
        let larder = try LarderProcess(["--store", store])
        XCTAssertEqual(larder.request("initialize")?["result"]?["store"]?["path"], .string(store))
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
