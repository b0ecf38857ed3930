#if canImport(Glibc)
import Glibc
#endif

/// Whole small files (mostly under /proc) without Foundation.
enum TextFile {
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 { bytes += chunk[0..<n]; continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func write(_ path: String, _ text: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        Progress.write(fd, text)
        return true
    }

    /// The value of a `Name:  value` line, as in /proc/cpuinfo and /proc/PID/status.
    static func field(_ name: String, in text: String) -> String? {
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].trimmingCharacters(in: " \t") == name {
                return String(line[line.index(after: colon)...]).trimmingCharacters(in: " \t")
            }
        }
        return nil
    }

    /// Nanoseconds a process has run on a CPU (the first field of /proc/PID/schedstat).
    static func cpuNanoseconds(pid: pid_t) -> UInt64? {
        guard let text = read("/proc/\(pid)/schedstat"), let first = text.split(separator: " ").first else { return nil }
        return UInt64(first)
    }

    /// VmRSS of a process in KiB.
    static func residentKiB(pid: pid_t) -> Int? { statusKiB("VmRSS", pid: pid) }

    /// VmHWM of a process in KiB: the most it has had resident so far.
    static func peakResidentKiB(pid: pid_t) -> Int? { statusKiB("VmHWM", pid: pid) }

    private static func statusKiB(_ name: String, pid: pid_t) -> Int? {
        guard let status = read("/proc/\(pid)/status"), let kib = field(name, in: status) else { return nil }
        return Int(kib.split(separator: " ").first ?? "")
    }
}
