import XCTest
import LarderJSON

final class ShutdownExitTests: XCTestCase {
    func testShutdownThenRequestIsRefused() throws {
        let larder = try startLarder()
        let shutdown = larder.request("shutdown", id: 1)
        XCTAssertEqual(shutdown?["result"], .null)
        XCTAssertNil(shutdown?["error"])
        let after = larder.request("no.such.method", id: 2)
        XCTAssertNotNil(after?["error"], "\(String(describing: after))")
        let initialize = larder.request("initialize", id: 3)
        XCTAssertEqual(initialize?.errorCode, -32600)
        let again = larder.request("shutdown", id: 4)
        XCTAssertEqual(again?.errorCode, -32600)
        XCTAssertTrue(larder.isRunning)
    }

    func testExitAfterShutdownExitsZero() throws {
        let larder = try startLarder()
        XCTAssertNotNil(larder.request("initialize", id: 1)?["result"])
        XCTAssertEqual(larder.request("shutdown", id: 2)?["result"], .null)
        larder.notify("exit")
        XCTAssertEqual(larder.waitForExit(), 0, larder.stderrText)
        XCTAssertTrue(larder.stdoutEnds())
    }

    func testExitWithoutShutdownExitsOne() throws {
        let larder = try startLarder()
        XCTAssertNotNil(larder.request("initialize", id: 1)?["result"])
        larder.notify("exit")
        XCTAssertEqual(larder.waitForExit(), 1, larder.stderrText)
    }

    func testExitAsTheFirstMessageExitsOne() throws {
        let larder = try startLarder()
        larder.notify("exit")
        XCTAssertEqual(larder.waitForExit(), 1)
        XCTAssertEqual(larder.readToEnd(), [], "exit is a notification: nothing is answered")
    }

    func testMessagesAfterExitAreNotServed() throws {
        let larder = try startLarder()
        // One write: exit and a request behind it, read in the same chunk.
        larder.send(#"{"jsonrpc":"2.0","method":"exit"}"# + "\n" + #"{"jsonrpc":"2.0","id":1,"method":"no.such.method"}"#)
        XCTAssertEqual(larder.waitForExit(), 1)
        XCTAssertEqual(larder.readToEnd(), [])
    }

    func testEndOfInputExitsZero() throws {
        let larder = try startLarder()
        assertStillServing(larder)
        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0)
    }

    func testEndOfInputWithoutAnyMessageExitsZero() throws {
        let larder = try startLarder()
        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0)
        XCTAssertEqual(larder.readToEnd(), [])
    }

    func testEndOfInputAnswersAnUnterminatedLastLine() throws {
        let larder = try startLarder()
        larder.send(bytes: Array(#"{"jsonrpc":"2.0","id":"last","method":"no.such.method"}"#.utf8))
        larder.closeStdin()
        let response = larder.readMessage()
        XCTAssertEqual(response?["id"], "last")
        XCTAssertEqual(response?.errorCode, -32601)
        XCTAssertEqual(larder.waitForExit(), 0)
    }

    func testKilledServerIsReportedAsSignalled() throws {
        let larder = try startLarder()
        assertStillServing(larder)
        larder.kill()
        XCTAssertEqual(larder.waitForExit(), 128 + SIGKILL)
        XCTAssertFalse(larder.isRunning)
        XCTAssertFalse(larder.send("{}") && larder.send(String(repeating: " ", count: 100_000)),
                       "writing to a dead server fails instead of hanging or raising SIGPIPE")
    }
}
