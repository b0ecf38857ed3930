#if canImport(Glibc)
import Glibc
#endif

/// Spawn to first `initialize` answer, and idle memory.
extension Benchmark {
    func measureColdStart() {
        let title = "start-up and memory"
        Progress.note(title)
        let store = scratch.child("cold-start")
        var encoder = RequestEncoder()
        let initialize = encoder.line("initialize", params: #"{"clientInfo":{"name":"larder-bench","version":"1"}}"#)
        // The first spawn creates the store; it is not counted.
        _ = startOnce(larderPath, ["--store", store], initialize)
        var times: [Double] = []
        var rss: [Double] = []
        for _ in 0..<plan.coldStarts {
            let (ns, kib) = startOnce(larderPath, ["--store", store], initialize)
            times.append(Double(ns) / 1e6)
            rss.append(Double(kib) / 1024)
        }
        var floorTimes: [Double] = []
        _ = startOnce(selfPath, [EchoResponder.flag], initialize)
        for _ in 0..<plan.coldStarts {
            floorTimes.append(Double(startOnce(selfPath, [EchoResponder.flag], initialize).ns) / 1e6)
        }
        let floor = Spread(floorTimes)
        report.add(Report.Figure(key: "start.coldStart", label: "cold start: spawn → initialize answer",
                                 value: Spread(times), unit: "ms", decimals: 2,
                                 note: "median of \(plan.coldStarts), existing store; floor (larder-bench --echo, spawn → answer) \(Format.fixed(floor.median, 2)) ms"),
                   to: title)
        report.add(Report.Figure(key: "start.rss.idle", label: "idle RSS after start (VmRSS)", value: Spread(rss),
                                 unit: "MB", decimals: 1), to: title)
        for (entries, kib) in storeRSS {
            report.add(Report.Figure(key: "start.rss.store.\(entries)",
                                     label: "RSS after the \(Format.count(entries))-entry store's series",
                                     value: Spread(single: Double(kib) / 1024), unit: "MB", decimals: 1,
                                     note: "memory tier full (10,000 entries)"), to: title)
        }
        ScratchDirectory.remove(store)
    }

    /// Spawns `path`, sends `line`, waits for the answer line; returns the time
    /// from spawn to answer and the child's VmRSS (KiB) right after answering.
    private func startOnce(_ path: String, _ arguments: [String], _ line: [UInt8]) -> (ns: UInt64, kib: Int) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let t0 = MonotonicClock.now()
        let child = ChildProcess.spawn(path, arguments)
        let wrote = line.withUnsafeBytes { write(child.stdinFD, $0.baseAddress, $0.count) }
        guard wrote == line.count else { Progress.fail("cannot write to \(path)") }
        var got = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(child.stdoutFD, $0.baseAddress! + got, $0.count - got) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { Progress.fail("\(path) closed its output before answering") }
            if buffer[got..<(got + n)].contains(0x0A) { got += n; break }
            got += n
        }
        let ns = MonotonicClock.now() - t0
        let answer = String(decoding: buffer[0..<got], as: UTF8.self)
        guard answer.contains(#""result""#) else { Progress.fail("\(path) answered initialize with: \(answer.prefix(300))") }
        let kib = child.residentKiB ?? 0
        child.finish()
        return (ns, kib)
    }
}
