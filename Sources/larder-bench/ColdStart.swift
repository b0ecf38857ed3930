#if canImport(Glibc)
import Glibc
#endif
import LarderCore
import LarderSystem

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
        measureLargeValue(title)
    }

    /// Peak RSS (VmHWM) while one large value is stored and read back: in the
    /// process that stored it, then in a new one on the same store (from the
    /// disk tier); in a memory-only store; and with the get sent in the same
    /// write as the set (pipelined), to a store directory and to memory only.
    /// Each figure is noted as a multiple of the value above the process's own
    /// peak before the value arrived. Once as a JSON string, and once as bytes
    /// (`data`, whose base64 request is a third larger).
    private func measureLargeValue(_ title: String) {
        for member in ["value", "data"] { measureLargeValue(title, member: member) }
    }

    private func measureLargeValue(_ title: String, member: String) {
        let isData = member == "data"
        // As base64 the bytes take the request the string took (a message is
        // at most 64 MiB).
        let size = isData ? plan.largeValue / 4 * 3 : plan.largeValue
        let large = LargeValue(member: member, size: size,
                               label: "\(size / 1_000_000) MB " + (isData ? "data" : "value"),
                               text: isData ? [UInt8(ascii: "\"")] + Array(Base64.encode(Array(repeating: 0xA5, count: size)).utf8) + [UInt8(ascii: "\"")]
                                            : Value.json(size: size))
        let prefix = isData ? "data." : ""
        func figure(_ key: String, _ what: String, _ kib: Int, idle: Int) {
            let multiple = Double(kib - idle) * 1024 / Double(size)
            largeValueMultiples.append(multiple)
            report.add(Report.Figure(key: "start.rss.largeValue.\(prefix)\(key)", label: "peak RSS, \(large.label): \(what)",
                                     value: Spread(single: Double(kib) / 1024), unit: "MB", decimals: 1,
                                     note: "\(Format.fixed(multiple, 2))× the value above idle (\(Format.fixed(Double(idle) / 1024, 1)) MB)"),
                       to: title)
        }

        let writer = session("large-\(member)")
        let idle = writer.child.peakResidentKiB ?? 0
        store(large, in: writer)
        let afterSet = writer.child.peakResidentKiB ?? 0
        readBack(large, from: writer)
        let afterGet = writer.child.peakResidentKiB ?? 0
        writer.close()
        let reader = LarderSession(larder: larderPath, store: writer.store)
        let readerIdle = reader.child.peakResidentKiB ?? 0
        readBack(large, from: reader)
        let fromDisk = reader.child.peakResidentKiB ?? 0
        discard(reader)
        figure("set", "cache.set", afterSet, idle: idle)
        figure("get", "then cache.get, same process", afterGet, idle: idle)
        figure("getFromDisk", "cache.get, new process (disk)", fromDisk, idle: readerIdle)

        let memory = LarderSession(larder: larderPath, store: .memory)
        let memoryIdle = memory.child.peakResidentKiB ?? 0
        store(large, in: memory)
        let memoryAfterSet = memory.child.peakResidentKiB ?? 0
        readBack(large, from: memory)
        let memoryAfterGet = memory.child.peakResidentKiB ?? 0
        discard(memory)
        figure("memory.set", "cache.set, --memory", memoryAfterSet, idle: memoryIdle)
        figure("memory.get", "then cache.get, --memory", memoryAfterGet, idle: memoryIdle)

        for (key, what, location) in [("pipelined", "set+get, one write", freshStore("large-\(member)-pipelined")),
                                      ("memory.pipelined", "set+get, one write, --memory", .memory)] {
            let s = LarderSession(larder: larderPath, store: location)
            let pipelinedIdle = s.child.peakResidentKiB ?? 0
            let answers = s.driver.exchange(large.set + large.get, answers: 2)
            checkStored(large, answers[0])
            checkReadBack(large, answers[1])
            let peak = s.child.peakResidentKiB ?? 0
            discard(s)
            figure(key, what, peak, idle: pipelinedIdle)
        }
    }

    /// A value as large as a message may be, the requests that store it and read it back.
    private struct LargeValue {
        let member: String
        let size: Int
        let label: String
        /// The value as the request holds it: JSON, or base64 in quotes.
        let text: [UInt8]
        static let setID = 1000001, getID = 1000002

        var set: [UInt8] {
            Array(#"{"jsonrpc":"2.0","id":\#(Self.setID),"method":"cache.set","params":{"key":"large","\#(member)":"#.utf8) + text + Array("}}\n".utf8)
        }
        var get: [UInt8] {
            Array(#"{"jsonrpc":"2.0","id":\#(Self.getID),"method":"cache.get","params":{"key":"large"}}"#.utf8) + [0x0A]
        }
    }

    private func store(_ large: LargeValue, in s: LarderSession) {
        checkStored(large, s.driver.exchange(large.set))
    }

    private func checkStored(_ large: LargeValue, _ answer: [UInt8]) {
        guard String(decoding: answer, as: UTF8.self).contains(#""stored":true,"size":\#(large.size)"#) else {
            Progress.fail("storing a \(large.label): \(String(decoding: answer.prefix(300), as: UTF8.self))")
        }
    }

    private func readBack(_ large: LargeValue, from s: LarderSession) {
        checkReadBack(large, s.driver.exchange(large.get))
    }

    /// Checks the large value's answer without parsing it.
    private func checkReadBack(_ large: LargeValue, _ answer: [UInt8]) {
        let head = Array(#"{"jsonrpc":"2.0","id":\#(LargeValue.getID),"result":{"found":true,"\#(large.member)":"#.utf8)
        guard answer.count > head.count + large.size, answer.starts(with: head) else {
            Progress.fail("reading back a \(large.label): \(String(decoding: answer.prefix(300), as: UTF8.self))")
        }
    }

    /// Spawns `path`, sends `line`, waits for the answer line; returns the time
    /// from spawn to answer and the child's VmRSS (KiB) right after answering.
    private func startOnce(_ path: String, _ arguments: [String], _ line: [UInt8]) -> (ns: UInt64, kib: Int) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let t0 = MonotonicClock.nanoseconds()
        let child = Subprocess.spawn(path, arguments)
        let wrote = line.withUnsafeBytes { write(child.inputDescriptor, $0.baseAddress, $0.count) }
        guard wrote == line.count else { Progress.fail("cannot write to \(path)") }
        var got = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(child.outputDescriptor, $0.baseAddress! + got, $0.count - got) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { Progress.fail("\(path) closed its output before answering") }
            if buffer[got..<(got + n)].contains(0x0A) { got += n; break }
            got += n
        }
        let ns = MonotonicClock.nanoseconds() - t0
        let answer = String(decoding: buffer[0..<got], as: UTF8.self)
        guard answer.contains(#""result""#) else { Progress.fail("\(path) answered initialize with: \(answer.prefix(300))") }
        let kib = child.residentKiB ?? 0
        child.finish()
        return (ns, kib)
    }
}
