import LarderSystem

/// The pipe floor: the same driver and request bytes against a child that
/// answers each line with a fixed line and does nothing else.
extension Benchmark {
    static let pipeFloorTitle = "pipe floor: larder-bench --echo answers every line with a fixed line (same driver, same get requests)"

    /// The echo child's answer length for gets of `valueSize` values: short, or as long as Larder's answer.
    func echoAnswerBytes(_ valueSize: Int) -> Int { valueSize >= 1024 ? valueSize + 150 : 0 }

    func spawnEcho(valueSize: Int) -> (Subprocess, Driver) {
        let child = Subprocess.spawn(selfPath, [EchoResponder.flag, String(echoAnswerBytes(valueSize))])
        return (child, Driver(writeFD: child.inputDescriptor, readFD: child.outputDescriptor))
    }

    func measurePipeFloor() {
        let title = Self.pipeFloorTitle
        Progress.note(title)
        let cache = "memory-100B"
        let warm = getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: plan.warmup, seed: 11)
        let batch = getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: plan.ops, seed: 12)
        for size in [0] + plan.valueSizes.filter({ $0 >= 1024 }).prefix(1) {
            let strictOps = size == 0 ? plan.strictOps : plan.extraStrictOps
            let strictBatch = getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: strictOps, seed: 13)
            let (child, driver) = spawnEcho(valueSize: size)
            _ = driver.pipelined(warm, window: plan.window)
            let rate = Statistics.rates(reps: plan.reps) { _ in (batch.count, driver.pipelined(batch, window: plan.window)) }
            driver.requireNoProblems("pipe floor")
            var discarded: [UInt64] = []
            _ = driver.strict(warm, latencies: &discarded)
            let (strictRate, latency) = strictSeries(driver, strictBatch, reps: plan.strictReps, what: "pipe floor", pid: child.pid)
            child.finish()
            floors.pipeRate[size] = rate
            floors.pipeRoundTrip[size] = latency
            let answers = size == 0 ? "short answers (39 B)" : "\(Format.count(echoAnswerBytes(size))) B answers"
            let tag = size == 0 ? "short" : Value.tag(size)
            report.add(Report.Row(key: "floor.pipe.\(tag).pipelined", label: "pipelined, \(answers)", opsPerSecond: rate), to: title)
            report.add(Report.Row(key: "floor.pipe.\(tag).strict", label: "strict round trip, \(answers)\(opsTag(strictOps, plan.strictOps))",
                                  opsPerSecond: strictRate, latency: latency), to: title)
        }
    }
}
