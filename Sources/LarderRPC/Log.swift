#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Diagnostics, on stderr only: stdout carries the protocol and nothing else.
public enum Log {
    public enum Level: Int, Comparable, Sendable, CaseIterable {
        case error, warn, info, debug
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        public init?(name: String) {
            guard let l = Level.allCases.first(where: { "\($0)" == name }) else { return nil }
            self = l
        }
    }

    // Set once by `main` before anything else runs; the server is single-threaded.
    nonisolated(unsafe) public static var level: Level = .warn

    public static func error(_ message: @autoclosure () -> String) { write(.error, message()) }
    public static func warn(_ message: @autoclosure () -> String) { write(.warn, message()) }
    public static func info(_ message: @autoclosure () -> String) { write(.info, message()) }
    public static func debug(_ message: @autoclosure () -> String) { write(.debug, message()) }

    /// The line a person at a terminal sees first. It reports nothing wrong,
    /// so it carries no level label; like everything but errors, it is left
    /// out at `--log-level error`.
    public static func banner(_ message: @autoclosure () -> String) {
        guard level > .error else { return }
        writeLine(message())
    }

    private static func write(_ l: Level, _ message: @autoclosure () -> String) {
        guard l <= level else { return }
        writeLine("larder: \(l): \(message())")
    }

    private static func writeLine(_ text: String) {
        var line = Array("\(text)\n".utf8)
        line.withUnsafeMutableBytes { _ = Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
