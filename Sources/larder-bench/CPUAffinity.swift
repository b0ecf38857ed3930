#if canImport(Glibc)
import Glibc
#endif

/// Pins processes to CPUs. `sched_setaffinity` needs _GNU_SOURCE and is not
/// imported into Swift, so it is looked up with dlsym.
enum CPUAffinity {
    private typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32

    /// Restricts `pid` (0: this process's thread) to `cpus`; false if that failed.
    @discardableResult
    static func set(_ pid: pid_t, to cpus: [Int]) -> Bool {
        guard let symbol = dlsym(nil, "sched_setaffinity") else { return false }
        let setAffinity = unsafeBitCast(symbol, to: SetAffinity.self)
        var mask = [UInt64](repeating: 0, count: 16)
        for c in cpus where c >= 0 && c < 1024 { mask[c / 64] |= UInt64(1) << UInt64(c % 64) }
        return mask.withUnsafeBytes { setAffinity(pid, $0.count, $0.baseAddress!) } == 0
    }

    static var allCPUs: [Int] { Array(0..<max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)) }
}

extension Benchmark {
    /// Runs a strict series with this process and `pids` on one CPU, so a
    /// round trip measures work rather than where the kernel chose to wake
    /// whom (on this 2-vCPU VM a cross-CPU wake-up costs ~30 µs each way).
    func pinned<T>(_ pids: [pid_t], _ body: () -> T) -> T {
        guard options.pinStrict else { return body() }
        let cpu = CPUAffinity.allCPUs.last!
        let ok = ([0] + pids).allSatisfy { CPUAffinity.set($0, to: [cpu]) }
        if !ok { Progress.note("warning: could not pin the strict series to CPU \(cpu)") }
        defer { for p in [0] + pids { CPUAffinity.set(p, to: CPUAffinity.allCPUs) } }
        return body()
    }
}
