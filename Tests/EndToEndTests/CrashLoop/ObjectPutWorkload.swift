import LarderTestSupport
import LarderJSON

/// Pipelined `object.put` of a registered type over a few hundred keys.
final class ObjectPutWorkload: CrashWorkload {
    let method = "object.put"
    private let ledger = WriteLedger()
    var ledgers: [WriteLedger] { [ledger] }
    private static let cache = "crash"
    private var sequence = 0

    func prepare(_ larder: LarderProcess, round: Int, random: inout SeededRandom) -> String? {
        // Registering the same definition again changes nothing, so every round may do it.
        larder.requestAll([("schema.register", ["type": "Memo", "version": "1", "fields": ["title": "string", "n": "integer"]])])
    }

    func burst(round: Int, random: inout SeededRandom) -> Burst {
        let burst = Burst()
        for _ in 0..<random.int(300...1500) {
            sequence += 1
            let key = "m\(random.int(0...199))"
            let value: JSON = ["title": .string("memo " + String(repeating: "z", count: random.int(0...400))), "n": .int(sequence)]
            burst.request(method, ["cache": .string(Self.cache), "key": .string(key), "type": "Memo", "value": value],
                          writes: (ledger, [.init(key: key, value: .storedObject(type: "Memo", version: "1", value))]))
        }
        return burst
    }

    func read(_ ledger: WriteLedger, from larder: LarderProcess) -> [String: JSON]? {
        larder.objects(cache: Self.cache, keys: ledger.keys)
    }
}
