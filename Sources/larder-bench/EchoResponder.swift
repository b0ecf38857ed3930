#if canImport(Glibc)
import Glibc
#endif

/// The pipe floor's child: the bench re-executed with `--echo [BYTES]`. It
/// answers every input line with one fixed line, using the I/O strategy Larder
/// uses (large `read`s, `memchr` for line ends, one `write` when the input is
/// drained), and does nothing else.
enum EchoResponder {
    static let flag = "--echo"

    static func run(answerBytes: Int) -> Int32 {
        // Shaped like a JSON-RPC response so the driver checks it like Larder's.
        var answer = Array(#"{"jsonrpc":"2.0","id":0,"result":"#.utf8)
        let padding = max(answerBytes - answer.count - 3, 0)
        if padding > 0 {
            answer.append(UInt8(ascii: "\""))
            answer += [UInt8](repeating: UInt8(ascii: "x"), count: padding)
            answer.append(UInt8(ascii: "\""))
        } else {
            answer += Array("true".utf8)
        }
        answer += [UInt8(ascii: "}"), 0x0A]

        let inputCapacity = 256 * 1024
        let input = UnsafeMutablePointer<UInt8>.allocate(capacity: inputCapacity)
        let flushAt = 1 << 20
        let outputCapacity = flushAt + answer.count
        let output = UnsafeMutablePointer<UInt8>.allocate(capacity: outputCapacity)
        var pending = 0
        var fds = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)

        func flush() -> Bool {
            var done = 0
            while done < pending {
                let n = write(1, output + done, pending - done)
                if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { return false }
            }
            pending = 0
            return true
        }

        answer.withUnsafeBufferPointer { reply in
            while true {
                let n = read(0, input, inputCapacity)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                var p = 0
                while p < n, let hit = memchr(input + p, 0x0A, n - p) {
                    p = UnsafeMutableRawPointer(input).distance(to: hit) + 1
                    if pending + reply.count > outputCapacity { guard flush() else { return } }
                    (output + pending).update(from: reply.baseAddress!, count: reply.count)
                    pending += reply.count
                }
                if pending >= flushAt || poll(&fds, 1, 0) <= 0 {
                    guard flush() else { return }
                }
            }
            _ = flush()
        }
        return 0
    }
}
