import XCTest
import LarderJSON

extension JSON {
    /// `error.code` of a response, if it has one.
    var errorCode: Int? { self["error"]?["code"]?.numberValue?.int }
}

extension XCTestCase {
    /// Starts `larder --memory` plus `arguments`.
    func startLarder(_ arguments: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> LarderProcess {
        do {
            return try LarderProcess(["--memory"] + arguments)
        } catch {
            XCTFail("cannot start larder at \(LarderProcess.executablePath): \(error)", file: file, line: line)
            throw error
        }
    }

    /// Checks that the server still answers properly: an unknown method gives -32601 under the right id.
    func assertStillServing(_ larder: LarderProcess, id: JSON = "probe", file: StaticString = #filePath, line: UInt = #line) {
        let response = larder.request("no.such.method", id: id, file: file, line: line)
        XCTAssertEqual(response?["jsonrpc"], "2.0", file: file, line: line)
        XCTAssertEqual(response?["id"], id, file: file, line: line)
        XCTAssertEqual(response?.errorCode, -32601, "\(response.map(\.description) ?? "no response")", file: file, line: line)
        XCTAssertTrue(larder.isRunning, "larder exited; stderr: \(larder.stderrText)", file: file, line: line)
    }

    /// Closes stdin and expects a clean exit with code 0.
    func assertCleanExit(_ larder: LarderProcess, file: StaticString = #filePath, line: UInt = #line) {
        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0, "stderr: \(larder.stderrAtEnd(timeout: 1))", file: file, line: line)
    }
}
