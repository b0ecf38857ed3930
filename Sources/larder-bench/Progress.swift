#if canImport(Glibc)
import Glibc
#endif

/// Progress and failures go to stderr, so stdout carries only the report.
enum Progress {
    static func note(_ text: String) { write(2, text + "\n") }

    static func fail(_ text: String, code: Int32 = 1) -> Never {
        write(2, "larder-bench: \(text)\n")
        exit(code)
    }

    static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + done, raw.count - done)
                if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { return }
            }
        }
    }

    static func errorText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
}
