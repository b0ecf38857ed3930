#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LarderSystem
import XCTest

final class SubprocessTests: XCTestCase {
    private func readAll(_ child: Subprocess) -> String {
        var output: [UInt8] = []
        while case .bytes = child.readOutput(appendingTo: &output, timeoutMilliseconds: 10_000) {}
        return String(decoding: output, as: UTF8.self)
    }

    func testAChildReadsItsInputAndItsOutputAndExitCodeComeBack() throws {
        let child = try Subprocess("/bin/sh", arguments: ["-c", "read line; echo \"got $line\"; exit 3"])
        XCTAssertTrue(child.write(Array("hello\n".utf8)))
        XCTAssertEqual(readAll(child), "got hello\n")
        XCTAssertEqual(child.wait(), .exited(3))
        XCTAssertEqual(child.wait().code, 3)
    }

    func testTheEnvironmentGivenIsTheChildsWhole() throws {
        let child = try Subprocess("/usr/bin/env", arguments: [], environment: ["ONLY": "this"])
        XCTAssertEqual(readAll(child), "ONLY=this\n")
        XCTAssertEqual(child.wait(), .exited(0))
    }

    func testAKilledChildEndsWithItsSignal() throws {
        let child = try Subprocess("/bin/sleep", arguments: ["30"], output: .null)
        XCTAssertNil(child.wait(timeoutMilliseconds: 20), "still running")
        child.kill(SIGTERM)
        XCTAssertEqual(child.wait(timeoutMilliseconds: 10_000), .signalled(SIGTERM))
        XCTAssertEqual(child.wait().code, 128 + SIGTERM)
    }

    func testErrorOutputGoesToAFile() throws {
        let path = NSTemporaryDirectory() + "subprocess-\(getpid())-stderr"
        defer { unlink(path) }
        let child = try Subprocess("/bin/sh", arguments: ["-c", "echo oops >&2"], output: .null, error: .file(path))
        XCTAssertEqual(child.wait(), .exited(0))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "oops\n")
    }

    func testErrorOutputOnAPipeIsTheCallersToRead() throws {
        let child = try Subprocess("/bin/sh", arguments: ["-c", "echo oops >&2"], output: .null, error: .pipe)
        let fd = child.takeErrorDescriptor()
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let n = read(fd, &bytes, bytes.count)
        XCTAssertEqual(String(decoding: bytes.prefix(max(n, 0)), as: UTF8.self), "oops\n")
        XCTAssertEqual(child.wait(), .exited(0))
    }

    /// Our end of one child's input must not leak into a child started
    /// later, or closing it would never reach the first as its end of input.
    func testClosingTheInputEndsItWhileAnotherChildRuns() throws {
        let reader = try Subprocess("/bin/cat", arguments: [], output: .null)
        let other = try Subprocess("/bin/sleep", arguments: ["30"], input: .null, output: .null)
        defer {
            other.kill()
            other.wait()
        }
        reader.closeInput()
        XCTAssertEqual(reader.wait(timeoutMilliseconds: 10_000), .exited(0))
    }

    func testSignalsIgnoredHereAreSetBackToDefaultWhenAsked() throws {
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        func ignoresPipe(_ defaults: [Int32]) throws -> Bool {
            let child = try Subprocess("/bin/grep", arguments: ["^SigIgn:", "/proc/self/status"], defaultSignals: defaults)
            let text = readAll(child)
            child.wait()
            let mask = UInt64(text.split(separator: "\t").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "", radix: 16) ?? 0
            return mask & (1 << UInt64(SIGPIPE - 1)) != 0
        }
        XCTAssertTrue(try ignoresPipe([]))
        XCTAssertFalse(try ignoresPipe([SIGPIPE]))
    }

    func testAMissingExecutableIsRefusedNamingIt() {
        XCTAssertThrowsError(try Subprocess("/nonexistent/larder-test", arguments: [])) { error in
            XCTAssertTrue("\(error)".contains("cannot start /nonexistent/larder-test"), "\(error)")
        }
    }

    func testTheMonotonicClockAgreesWithItself() {
        let ns = MonotonicClock.nanoseconds()
        let ms = MonotonicClock.milliseconds()
        let s = MonotonicClock.seconds()
        XCTAssertLessThanOrEqual(Int64(ns / 1_000_000), ms)
        XCTAssertLessThanOrEqual(Double(ms) / 1000, s + 0.001)
    }
}
