#if canImport(Glibc)
import Glibc
#endif

/// The pipe floor's child: the bench re-executed with `--echo [BYTES]`. It
/// answers every input line with one fixed line, with Larder's I/O pattern
/// (64 KiB `read`s, `memchr` for line ends, answers buffered and written with
/// one `write` once a read's lines are handled and the input is drained or
/// 1 MiB is waiting), and does nothing else.
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

        let chunk = 64 * 1024
        let input = UnsafeMutablePointer<UInt8>.allocate(capacity: chunk)
        let flushAt = 1 << 20
        var output: [UInt8] = []
        output.reserveCapacity(flushAt * 2)
        var fds = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)

        func flush() -> Bool {
            defer { output.removeAll(keepingCapacity: true) }
            return output.withUnsafeBytes { raw in
                var done = 0
                while done < raw.count {
                    let n = write(1, raw.baseAddress! + done, raw.count - done)
                    if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { return false }
                }
                return true
            }
        }

        while true {
            let n = read(0, input, chunk)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            var p = 0
            while p < n, let hit = memchr(input + p, 0x0A, n - p) {
                p = UnsafeMutableRawPointer(input).distance(to: hit) + 1
                output += answer
            }
            if output.count >= flushAt || poll(&fds, 1, 0) <= 0 {
                guard flush() else { return 0 }
            }
        }
        _ = flush()
        return 0
    }
}
