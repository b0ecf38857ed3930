#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderSystem
import LarderTestSupport
import LarderJSON

/// When a crash loop kills the server during a burst.
///
/// Counting messages puts the kill anywhere in the burst however fast the
/// machine is; the pause after them, or a plain delay, moves it off the
/// moment an answer was just written, into handling, statements and commits.
enum KillPoint: CustomStringConvertible {
    /// After reading this many messages.
    case afterMessages(Int)
    /// After reading this many messages, then waiting.
    case afterMessagesThenPause(Int, microseconds: UInt32)
    /// This long after the burst started to go out, reading messages meanwhile.
    case afterDelay(microseconds: UInt32)

    /// A kill point within a burst of `expectedMessages` messages sent as `slices`.
    static func random(expectedMessages: Int, slices: [PacedWrite.Slice], using random: inout SeededRandom) -> KillPoint {
        switch random.int(0...2) {
        case 0: return .afterMessages(random.int(0...expectedMessages))
        case 1: return .afterMessagesThenPause(random.int(0...expectedMessages), microseconds: UInt32(random.int(0...2_000)))
        default:
            // Within the time the pauses take, plus a little for the work.
            let pauses = slices.reduce(0) { $0 + Int($1.pauseAfter) }
            return .afterDelay(microseconds: UInt32(random.int(0...(pauses + 5_000))))
        }
    }

    var description: String {
        switch self {
        case .afterMessages(let n): return "kill after \(n) messages"
        case .afterMessagesThenPause(let n, let us): return "kill \(us) µs after \(n) messages"
        case .afterDelay(let us): return "kill \(us) µs after the burst began"
        }
    }

    /// How long to wait for the next message before deciding the server is stuck.
    /// Generous: a loaded two-core machine can stall a debug build for seconds.
    static let patience: Double = 60

    /// Sends `burst` to `larder` as `slices`, kills it with SIGKILL at this
    /// point, and hands the burst every message the server sent before it
    /// died — those read before the kill and those still in the pipe after
    /// it. Returns the problems found, if any.
    func crash(_ larder: LarderProcess, during burst: Burst, sentAs slices: [PacedWrite.Slice]) -> [String] {
        var problems: [String] = []
        func take(_ line: [UInt8]) {
            do {
                if let problem = burst.receive(try JSONParser.parse(line)) { problems.append(problem) }
            } catch {
                problems.append("a line that is not JSON (\(error)): \(String(decoding: line, as: UTF8.self))")
            }
        }
        let writer = PacedWrite(slices, to: larder.pipeDescriptors.toChild)
        let start = MonotonicClock.seconds()
        switch self {
        case .afterMessages(let n), .afterMessagesThenPause(let n, _):
            for received in 0..<n {
                guard let line = larder.readLine(timeout: Self.patience) else {
                    problems.append("the server sent \(received) messages, then nothing for \(Int(Self.patience)) s or ended, before the kill")
                    break
                }
                take(line)
            }
            if case .afterMessagesThenPause(_, let us) = self { usleep(us) }
        case .afterDelay(let us):
            let deadline = start + Double(us) / 1e6
            while let line = larder.readLine(timeout: max(0, deadline - MonotonicClock.seconds())) { take(line) }
        }
        larder.kill(SIGKILL)
        let status = larder.waitForExit(timeout: Self.patience)
        if status != 128 + SIGKILL {
            problems.append("the server ended by itself before the kill (status \(status.map(String.init) ?? "none")); stderr: \(larder.stderrAtEnd(timeout: 5))")
        }
        // The pipe's write end died with the server: this reads to its end.
        while let line = larder.readLine(timeout: Self.patience) { take(line) }
        if !writer.wait(timeout: Self.patience) { problems.append("writing the burst did not end after the kill") }
        return problems
    }
}
