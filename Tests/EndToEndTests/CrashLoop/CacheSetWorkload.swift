import LarderTestSupport
import LarderJSON

/// Pipelined `cache.set`, in the shape answered straight from its bytes, over
/// a few hundred keys, so that most writes overwrite an earlier one and an
/// older value coming back would show. The cache has a disk limit far above
/// the keys it holds: nothing is evicted, but the checks' reads are noted and
/// saved with the next writes, as in a cache that evicts.
final class CacheSetWorkload: CrashWorkload {
    let method = "cache.set"
    private let ledger = WriteLedger()
    var ledgers: [WriteLedger] { [ledger] }
    private static let cache = "crash"
    private var sequence = 0

    func prepare(_ larder: LarderProcess, round: Int, random: inout SeededRandom) -> String? {
        larder.requestAll([("cache.open", ["cache": .string(Self.cache), "disk": ["maxCount": 1_000_000]])])
    }

    func burst(round: Int, random: inout SeededRandom) -> Burst {
        let burst = Burst()
        for _ in 0..<random.int(300...2500) {
            sequence += 1
            let key = "k\(random.int(0...255))"
            // Values of varied size, so commits span varied numbers of pages.
            let value: JSON = ["seq": .int(sequence), "pad": .string(String(repeating: "x", count: random.int(0...1500)))]
            burst.request(method, ["cache": .string(Self.cache), "key": .string(key), "value": value],
                          writes: (ledger, [.init(key: key, value: value)]))
        }
        return burst
    }

    func read(_ ledger: WriteLedger, from larder: LarderProcess) -> [String: JSON]? {
        larder.entries(cache: Self.cache, keys: ledger.keys)?.compactMapValues { $0["value"] }
    }
}
