#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LarderCore
import LarderJSON
import XCTest
@testable import LarderServer

/// A server serving a store on a thread of its own through two pipes, as
/// `larder` serves a client: each `send` writes its requests at once, one
/// burst, and waits for their answers, so every burst is one group commit.
/// (`serveSession` reads a file, and a whole file is a single burst.)
final class LiveSession {
    private let server: ServerThread
    private let toServer: Int32
    private let fromServer: Int32
    private var unread: [UInt8] = []

    /// Starts serving `store`; the session owns it from now on, and closes it when it ends.
    init(store: Store, direct: Bool = true) {
        var input: [Int32] = [0, 0], output: [Int32] = [0, 0]
        precondition(pipe(&input) == 0 && pipe(&output) == 0, "pipe failed with errno \(errno)")
        var options = ServerOptions(storePath: store.directory)
        options.directAnswers = direct
        server = ServerThread(store: store, options: options, input: input[0], output: output[1])
        toServer = input[1]
        fromServer = output[0]
        let server = self.server
        Thread.detachNewThread { server.run() }
    }

    /// Sends `requests` in one write and returns their answers, in the order
    /// they came; notifications are left out.
    func send(_ requests: [String], file: StaticString = #filePath, line: UInt = #line) -> [JSON] {
        let bytes = Array((requests.joined(separator: "\n") + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(toServer, $0.baseAddress, $0.count) }
            guard n > 0 else {
                XCTFail("writing to the server failed with errno \(errno)", file: file, line: line)
                return []
            }
            written += n
        }
        var answers: [JSON] = []
        while answers.count < requests.count {
            guard let text = nextLine() else {
                XCTFail("\(answers.count) of \(requests.count) answers came", file: file, line: line)
                return answers
            }
            guard let message = try? JSONParser.parse(text) else {
                XCTFail("not JSON: \(text)", file: file, line: line)
                return answers
            }
            if message["method"] == nil { answers.append(message) }
        }
        return answers
    }

    /// Ends the input, as a client closing its end, and waits until the server has stopped.
    func end() {
        close(toServer)
        while nextLine() != nil {}
        server.stopped.wait()
        close(fromServer)
    }

    /// The next line the server wrote; nil when it stopped writing, or wrote nothing for 20 seconds.
    private func nextLine() -> String? {
        while true {
            if let newline = unread.firstIndex(of: UInt8(ascii: "\n")) {
                let text = String(decoding: unread[..<newline], as: UTF8.self)
                unread.removeSubrange(...newline)
                return text
            }
            var ready = pollfd(fd: fromServer, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 20_000) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let n = chunk.withUnsafeMutableBytes { read(fromServer, $0.baseAddress, $0.count) }
            guard n > 0 else { return nil }
            unread += chunk[..<n]
        }
    }
}

/// What the server's thread needs. The store and options pass to that
/// thread when it starts and are not touched by the test until `stopped`.
private final class ServerThread: @unchecked Sendable {
    let store: Store
    let options: ServerOptions
    let input: Int32
    let output: Int32
    let stopped = DispatchSemaphore(value: 0)

    init(store: Store, options: ServerOptions, input: Int32, output: Int32) {
        self.store = store
        self.options = options
        self.input = input
        self.output = output
    }

    func run() {
        _ = LarderService.serve(options: options, store: store, input: input, output: output)
        close(input)
        close(output)
        stopped.signal()
    }
}

/// A store directory, served by one server process after another: what one
/// wrote, the next finds after a restart.
final class StoreDirectory {
    let path: String

    init() {
        var template = Array("/tmp/larder-server-tests-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed with errno \(errno)")
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Opens the store, lets `prepare` arrange it (a fault to inject), serves
    /// it to `body`, and stops the server, which closes the store.
    func serve(direct: Bool = true, prepare: (Store) throws -> Void = { _ in },
               _ body: (LiveSession) throws -> Void) throws {
        let store = try Store(directory: path, clock: Clock(fixedAt: 1_767_225_600_000))
        do {
            try prepare(store)
        } catch {
            store.close()
            throw error
        }
        let session = LiveSession(store: store, direct: direct)
        defer { session.end() }
        try body(session)
    }
}
