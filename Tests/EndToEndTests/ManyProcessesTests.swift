#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LarderJSON
import XCTest

/// Several `larder` processes on one store directory (SPEC §13): what one
/// process acknowledges, the others read, nothing acknowledged is lost, and
/// processes racing to create the same cache, schema or model all succeed.
///
/// Bounded to a few seconds; `LARDER_PROCESS_ROUNDS=N` repeats each race N
/// times (default 20) and scales the mixed workload with it.
final class ManyProcessesTests: XCTestCase {
    static let rounds: Int = {
        guard let text = ProcessInfo.processInfo.environment["LARDER_PROCESS_ROUNDS"], let n = Int(text), n > 0 else { return 20 }
        return n
    }()

    private var directories: [String] = []

    override func tearDown() {
        for d in directories { try? FileManager.default.removeItem(atPath: d) }
        directories = []
        super.tearDown()
    }

    /// A store directory no process has used yet.
    func freshStore() -> String {
        let d = NSTemporaryDirectory() + "larder-processes-" + UUID().uuidString
        directories.append(d)
        return d
    }

    /// `count` processes on `store`, each answering before this returns (so each has opened the store).
    /// Started from this thread: `LarderProcess` sets close-on-exec after pipe(2).
    func start(_ count: Int, on store: String, file: StaticString = #filePath, line: UInt = #line) throws -> [LarderProcess] {
        let processes = try (0..<count).map { _ in try LarderProcess(["--store", store]) }
        for p in processes {
            XCTAssertNotNil(p.request("cache.list", id: "ready", file: file, line: line)?["result"], "stderr: \(p.stderrText)",
                            file: file, line: line)
        }
        return processes
    }
}

// MARK: - Requests and answers

extension LarderProcess {
    /// A request's JSON-RPC message.
    static func message(_ method: String, _ params: JSON, id: JSON) -> JSON {
        ["jsonrpc": "2.0", "id": id, "method": .string(method), "params": params]
    }

    /// Sends a request without waiting for its answer (`answer(id:)` reads it).
    func post(_ method: String, _ params: JSON, id: JSON) {
        send(json: Self.message(method, params, id: id))
    }

    /// The answer to request `id`, skipping notifications; nil at a timeout.
    func answer(id: JSON, file: StaticString = #filePath, line: UInt = #line) -> JSON? {
        readUntilResponse(id: id, file: file, line: line).last.flatMap { $0["id"] == id ? $0 : nil }
    }
}

extension JSON {
    /// True for an answer that is a result, or the retryable -31002 (store locked):
    /// the only outcomes contention may have (SPEC §13).
    var isResultOrLocked: Bool { self["result"] != nil || errorCode == -31002 }
}

/// Runs `body(k)` for every k in 0..<count, each on a thread of its own and
/// all at once (a dispatch queue would run them a core's worth at a time),
/// and waits for all of them.
func simultaneously(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let done = DispatchSemaphore(value: 0)
    for k in 0..<count {
        Thread.detachNewThread {
            body(k)
            done.signal()
        }
    }
    for _ in 0..<count { done.wait() }
}
