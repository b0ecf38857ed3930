/// The goals the figures are held to (100 B values). A store on PostgreSQL
/// is held to its own: a pipelined set at 60% of its floor, and memory-tier
/// gets to SQLite's targets, which are against the pipe floor measured in the
/// same run (so as fast as on SQLite, on the same machine); its other figures
/// are reported against their floors without a target.
extension Benchmark {
    func checkTargets() {
        func add(_ name: String, _ measured: String, _ goal: String, _ met: Bool) {
            report.targets.append(Report.Target(name: name, measured: measured, goal: goal, met: met))
        }
        checkCoordinationTargets(add)
        if let postgres {
            checkMemoryGetTargets(add)
            if let ratio = report.row("set.100B.pipelined")?.ratio {
                let name = postgres.isDurable ? "pipelined durable set / storage floor insert" : "pipelined set (not durable) / storage floor insert"
                add(name, "\(Format.fixed(ratio.value * 100, 1))%", "≥ 60%", ratio.value >= 0.6)
            }
            return
        }
        checkMemoryGetTargets(add)
        checkManyCachesTargets(add)
        // A hit of cache.getOrFetch is a get (the few bytes of `"fetched":false` aside).
        if let ratio = report.row("fetch.hit.pipelined")?.ratio {
            add("pipelined getOrFetch hit / get", "\(Format.fixed(ratio.value * 100, 1))%", "≥ 90%", ratio.value >= 0.9)
        }
        if let ratio = report.row("fetch.hit.strict")?.ratio {
            add("strict getOrFetch hit p50 / get p50", "\(Format.fixed(ratio.value, 2))×", "≤ 1.1×", ratio.value <= 1.1)
        }
        if let ratio = report.row("set.100B.pipelined")?.ratio {
            add("pipelined set / storage floor insert", "\(Format.fixed(ratio.value * 100, 1))%", "≥ 50%", ratio.value >= 0.5)
        }
        if let ratio = report.row("get.disk.100B.pipelined")?.ratio {
            add("disk get / storage floor SELECT", "\(Format.fixed(ratio.value * 100, 1))%", "≥ 50%", ratio.value >= 0.5)
        }
        // The row's ratio is a share of the plain cache's rate; its inverse is the time a get takes against the plain one's.
        if let ratio = report.row("encryption.get.disk.100B.encrypted.pipelined")?.ratio {
            add("encrypted disk get, time / plain cache's", "\(Format.fixed(1 / ratio.value, 2))×", "≤ 1.5×", 1 / ratio.value <= 1.5)
        }
        if let rate = report.row("entities.upsert")?.opsPerSecond {
            add("entity.upsert (Band + Album, \(Format.count(plan.recordsPerCall))/call)", "\(Format.count(rate.median)) records/s", "≥ 50,000 records/s",
                rate.median >= Self.entityTarget)
        }
        if let f = report.figure("start.coldStart") {
            add("cold start (median)", "\(Format.fixed(f.value.median, 2)) ms", "≤ 10 ms", f.value.median <= 10)
        }
        if let f = report.figure("start.rss.idle") {
            add("idle RSS after start", "\(Format.fixed(f.value.median, 1)) MB", "≤ 16 MB", f.value.median <= 16)
        }
        if let worst = largeValueMultiples.max() {
            add("peak RSS, large value stored, read back", "\(Format.fixed(worst, 2))× the value plus idle",
                "≤ 3× the value plus idle", worst <= 3)
        }
        // Bounded by the memory tier: every scale store fills the same tier
        // (10,000 entries), so RSS must not grow with what lies on disk beyond
        // SQLite's page cache (2 MB).
        if let smallest = storeRSS.first, let largest = storeRSS.last, largest.entries > smallest.entries {
            let growth = Double(largest.kib - smallest.kib) / 1024
            add("RSS growth, \(Format.count(smallest.entries)) → \(Format.count(largest.entries)) entries on disk",
                "\(Format.fixed(growth, 1)) MB (\(Format.fixed(Double(largest.kib) / 1024, 1)) MB in all)", "≤ 2 MB", growth <= 2)
        }
    }

    /// Coordination costs little next to the plain writes it guards, on
    /// either engine: a conditional set at least 0.9 times a plain set's
    /// rate, an increment 0.8 times, a transaction of 10 comparisons and 10
    /// sets at most twice the time of 20 plain sets, and a lease taken and
    /// given back at most twice a strict set's round trip.
    private func checkCoordinationTargets(_ add: (String, String, String, Bool) -> Void) {
        if let ratio = report.row("coordination.conditionalSet.pipelined")?.ratio {
            add("pipelined set with ifRevision / plain set", "\(Format.fixed(ratio.value * 100, 1))%", "≥ 90%", ratio.value >= 0.9)
        }
        if let ratio = report.row("coordination.increment.pipelined")?.ratio {
            add("pipelined cache.increment / plain set", "\(Format.fixed(ratio.value * 100, 1))%", "≥ 80%", ratio.value >= 0.8)
        }
        if let ratio = report.row("coordination.transaction.pipelined")?.ratio {
            add("transaction of 10 + 10 / 20 plain sets' time", "\(Format.fixed(ratio.value * 100, 1))%", "≥ 50%", ratio.value >= 0.5)
        }
        if let ratio = report.row("coordination.lease.strict")?.ratio {
            add("strict lock.acquire + release p50 / strict set p50", "\(Format.fixed(ratio.value, 2))×", "≤ 2×", ratio.value <= 2)
        }
    }

    /// With the most caches loaded, a request takes at most 1.2 times what it
    /// takes with the fewest, and the idle sidecar uses no CPU (under 1% of a core).
    private func checkManyCachesTargets(_ add: (String, String, String, Bool) -> Void) {
        guard let most = plan.loadedCaches.last, most != plan.loadedCaches.first else { return }
        let n = Format.count(most)
        for (series, what) in [("get.memory.pipelined", "memory get"), ("set.pipelined", "pipelined set")] {
            if let ratio = report.row("caches.\(most).\(series)")?.ratio {
                add("\(what) with \(n) caches loaded, time / with \(Format.count(plan.loadedCaches[0]))", "\(Format.fixed(ratio.value, 2))×", "≤ 1.2×", ratio.value <= 1.2)
            }
        }
        if let f = report.figure("caches.\(most).idleCPU") {
            add("idle CPU with \(n) caches loaded", "\(Format.fixed(f.value.median, 2))% of a core", "≤ 1%", f.value.median <= 1)
        }
    }

    private func checkMemoryGetTargets(_ add: (String, String, String, Bool) -> Void) {
        if let r = report.row("get.memory.100B.pipelined"), let rate = r.opsPerSecond {
            add("pipelined memory get", "\(Format.count(rate.median)) ops/s", "≥ 1,000,000 ops/s", rate.median >= 1_000_000)
            if let ratio = r.ratio {
                add("pipelined memory get / pipe floor", "\(Format.fixed(ratio.value * 100, 1))%", "≥ 10%", ratio.value >= 0.10)
            }
        }
        if let ratio = report.row("get.memory.100B.strict")?.ratio {
            add("strict memory get p50 / pipe round trip", "\(Format.fixed(ratio.value, 2))×", "≤ 1.5×", ratio.value <= 1.5)
        }
    }
}
