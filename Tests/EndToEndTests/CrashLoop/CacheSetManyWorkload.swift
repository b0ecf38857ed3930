import LarderTestSupport
import LarderJSON

/// Pipelined `cache.setMany` of up to two dozen entries each, over a few
/// hundred keys: each is stored entirely or not at all.
final class CacheSetManyWorkload: CrashWorkload {
    let method = "cache.setMany"
    private let ledger = WriteLedger()
    var ledgers: [WriteLedger] { [ledger] }
    private static let cache = "crash"
    private static let keys = (0..<256).map { "k\($0)" }
    private var sequence = 0

    func burst(round: Int, random: inout SeededRandom) -> Burst {
        let burst = Burst()
        for _ in 0..<random.int(50...250) {
            var writes: [WriteLedger.Write] = []
            for key in random.distinct(random.int(2...24), of: Self.keys) {
                sequence += 1
                writes.append(.init(key: key, value: ["seq": .int(sequence), "pad": .string(String(repeating: "y", count: random.int(0...600)))]))
            }
            let entries = writes.map { JSON.object(["key": .string($0.key), "value": $0.value]) }
            burst.request(method, ["cache": .string(Self.cache), "entries": .array(entries)], writes: (ledger, writes))
        }
        return burst
    }

    func read(_ ledger: WriteLedger, from larder: LarderProcess) -> [String: JSON]? {
        larder.entries(cache: Self.cache, keys: ledger.keys)?.compactMapValues { $0["value"] }
    }
}
