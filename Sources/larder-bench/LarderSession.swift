import LarderJSON
import LarderSystem

/// One `larder` process on a fresh store, driven over its pipes.
final class LarderSession {
    let child: Subprocess
    let driver: Driver
    let store: StoreLocation
    var encoder = RequestEncoder()
    private(set) var serverVersion = "?"

    /// `encryptionKey`: base64 of 32 bytes, the session's key for encrypted caches.
    init(larder: String, store: StoreLocation, capabilities: String = "{}", encryptionKey: String? = nil) {
        self.store = store
        child = Subprocess.spawn(larder, store.arguments)
        driver = Driver(writeFD: child.inputDescriptor, readFD: child.outputDescriptor)
        let encryption = encryptionKey.map { #","encryption":{"key":"\#($0)"}"# } ?? ""
        let result = call("initialize", params: #"{"clientInfo":{"name":"larder-bench","version":"1"},"capabilities":\#(capabilities)\#(encryption)}"#)
        serverVersion = result["serverInfo"]?["version"]?.stringValue ?? "?"
    }

    /// A setup call: one request, its result parsed (an error stops the program).
    @discardableResult
    func call(_ method: String, params: String) -> JSON {
        let answer = driver.exchange(encoder.line(method, params: params))
        let json: JSON
        do {
            json = try JSONParser.parse(answer)
        } catch {
            Progress.fail("\(method): unreadable answer (\(error)): \(String(decoding: answer.prefix(400), as: UTF8.self))")
        }
        guard let result = json["result"] else {
            Progress.fail("\(method) \(params.prefix(200)) failed: \(String(decoding: answer.prefix(400), as: UTF8.self))")
        }
        return result
    }

    /// `memory`: the memory tier's limits as JSON (nil: the default ones).
    func openCache(_ name: String, memory: String?, persistent: Bool = true, encrypted: Bool = false) {
        var params = #"{"cache":"\#(name)""#
        if let memory { params += #","memory":\#(memory)"# }
        if !persistent { params += #","persistent":false"# }
        if encrypted { params += #","encrypted":true"# }
        call("cache.open", params: params + "}")
    }

    /// Stores keys 0..<count with `cache.setMany`, `entriesPerCall` per call
    /// and a few calls in flight; returns the nanoseconds it took.
    @discardableResult
    func populate(cache: String, keys: KeySpace, count: Int, value: [UInt8], plan: Plan) -> UInt64 {
        var batch = RequestBatch(reservingBytes: count * (value.count + 48) + 256, requests: count / plan.entriesPerCall + 1)
        var n = 0
        while n < count {
            let upper = min(n + plan.entriesPerCall, count)
            encoder.setMany(&batch, cache: cache, keys: keys, n..<upper, value: value)
            n = upper
        }
        let ns = driver.pipelined(batch, window: plan.callWindow)
        driver.requireNoProblems("populating \(cache)")
        return ns
    }

    /// Checks one key's answer: found, and from the expected tier.
    func probe(cache: String, keys: KeySpace, _ n: Int, tier: String) {
        let key = String(decoding: keys.key(n), as: UTF8.self)
        let r = call("cache.get", params: #"{"cache":"\#(cache)","key":"\#(key)"}"#)
        guard r["found"]?.boolValue == true, r["tier"]?.stringValue == tier else {
            Progress.fail("probe of \(cache)/\(key) expected a hit from \(tier), got \(r)")
        }
    }

    struct Counters {
        var memoryHits = 0, memoryMisses = 0, diskHits = 0, diskMisses = 0
        static func - (a: Counters, b: Counters) -> Counters {
            Counters(memoryHits: a.memoryHits - b.memoryHits, memoryMisses: a.memoryMisses - b.memoryMisses,
                     diskHits: a.diskHits - b.diskHits, diskMisses: a.diskMisses - b.diskMisses)
        }
        var memoryHitRate: Double { Double(memoryHits) / Double(max(memoryHits + memoryMisses, 1)) }
    }

    func stats(cache: String) -> Counters {
        let r = call("cache.stats", params: #"{"cache":"\#(cache)"}"#)
        func n(_ tier: String, _ name: String) -> Int { r[tier]?[name]?.numberValue?.int ?? 0 }
        return Counters(memoryHits: n("memory", "hits"), memoryMisses: n("memory", "misses"),
                        diskHits: n("disk", "hits"), diskMisses: n("disk", "misses"))
    }

    var residentKiB: Int? { child.residentKiB }

    /// Ends the session (stdin closed: Larder commits and exits) and checks the exit code.
    func close() {
        let code = child.finish()
        if code != 0 { Progress.note("warning: larder exited with \(code)") }
    }
}
