import LarderPostgreSQL
import LarderSystem

/// How soon one sidecar reads what another acknowledged, on one store on
/// PostgreSQL, in each coherence mode (`--pg-coherence`): sidecar A sets a
/// key and gets its answer; sidecar B, which holds the key's previous value
/// in its memory tier, reads it again and again until it answers the new
/// value. The delay runs from A's answer to B's first fresh one, so it
/// includes B's last read (under `strict`, that read alone: never stale).
extension Benchmark {
    func measureCoherence() {
        let title = "coherence: from sidecar A's acknowledged set to sidecar B reading it (µs; B reads again until fresh)"
        Progress.note(title)
        for mode in PostgresCoherence.allCases.map(\.rawValue) {
            // Under poll each write waits up to 50 ms: fewer of them.
            let writes = mode == "poll" ? max(plan.coherenceWrites / 10, 20) : plan.coherenceWrites
            let store = freshStore("coherence-\(mode)")
            let a = LarderSession(larder: larderPath, store: store.with(coherence: "strict"))
            let b = LarderSession(larder: larderPath, store: store.with(coherence: mode))
            defer {
                a.close()
                b.close()
                remove(store)
            }
            a.openCache("shared", memory: nil)
            b.openCache("shared", memory: nil)
            let key = #"{"cache":"shared","key":"k"}"#
            func read() -> Int? { b.call("cache.get", params: key)["value"]?.numberValue?.int }
            var delays: [UInt64] = []
            var stale = 0
            for n in 0...writes {
                a.call("cache.set", params: #"{"cache":"shared","key":"k","value":\#(n)}"#)
                let acknowledged = MonotonicClock.nanoseconds()
                var reads = 1
                while read() != n {
                    reads += 1
                    if MonotonicClock.nanoseconds() - acknowledged > 10_000_000_000 {
                        Progress.fail("coherence \(mode): sidecar B did not read write \(n) within 10 s")
                    }
                }
                // The first write puts the key in B's memory tier; the rest are measured.
                guard n > 0 else { continue }
                delays.append(MonotonicClock.nanoseconds() - acknowledged)
                if reads > 1 { stale += 1 }
            }
            report.add(Report.Row(key: "coherence.\(mode)",
                                  label: "\(mode): \(Format.count(writes)) writes on A, each read on B",
                                  latency: Latency(perRepetition: [delays]),
                                  note: "B's first read after A's answer stale \(stale) of \(Format.count(writes)) times"), to: title)
        }
    }
}
