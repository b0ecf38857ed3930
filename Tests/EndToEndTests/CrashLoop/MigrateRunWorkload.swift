import LarderTestSupport
import LarderJSON

/// `migrate.run` with a small `batchSize` over objects stored at version 1 of
/// a type whose version 2 declares a migration (steps the server runs alone,
/// no client callback), with pipelined `cache.set`s served between its
/// batches. Each batch of objects is migrated entirely or not at all, in
/// order; every `$/progress` report acknowledges one more batch (it is sent
/// after that batch's commit), and the answer all of them.
///
/// Each round stores the same keys again, as objects of a type of its own,
/// so a value of an earlier round coming back would show.
final class MigrateRunWorkload: CrashWorkload {
    let method = "migrate.run"
    /// The objects, as `JSON.storedObject`s.
    private let objects = WriteLedger()
    /// Keys of the cache the `cache.set`s between batches write.
    private let side = WriteLedger()
    var ledgers: [WriteLedger] { [objects, side] }
    private static let objectCount = 300
    private static let cache = "notes"
    private static let sideCache = "between-batches"
    private var sequence = 0

    private static func type(_ round: Int) -> String { "Note\(round)" }

    /// The keys in the order `migrate.run` visits them (by UTF-8 bytes).
    private static let keys: [String] = (0..<objectCount).map {
        let digits = String($0)
        return "n" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    private static func title(_ key: String, round: Int) -> String { "note \(key) of round \(round)" }

    func prepare(_ larder: LarderProcess, round: Int, random: inout SeededRandom) -> String? {
        let type = Self.type(round)
        if let problem = larder.requestAll([("schema.register", ["type": .string(type), "version": "1", "fields": ["title": "string"]])])
            ?? larder.requestAll(Self.keys.map {
                ("object.put", ["cache": .string(Self.cache), "key": .string($0), "type": .string(type), "value": ["title": .string(Self.title($0, round: round))]])
            })
            ?? larder.requestAll([("schema.register", [
                "type": .string(type), "version": "2", "fields": ["name": "string", "source": "string"],
                "migrations": [["from": "1", "steps": [["op": "rename", "from": "title", "to": "name"], ["op": "set", "field": "source", "value": "v1"]]]],
            ])])
        {
            return problem
        }
        for key in Self.keys {
            objects.recordDurable(key, .storedObject(type: type, version: "1", ["title": .string(Self.title(key, round: round))]))
        }
        return nil
    }

    func burst(round: Int, random: inout SeededRandom) -> Burst {
        let burst = Burst()
        let type = Self.type(round)
        let batchSize = random.int(2...12)
        var batches: [Int] = []
        for start in stride(from: 0, to: Self.keys.count, by: batchSize) {
            let writes = Self.keys[start..<min(Self.keys.count, start + batchSize)].map {
                WriteLedger.Write(key: $0, value: .storedObject(type: type, version: "2", ["name": .string(Self.title($0, round: round)), "source": "v1"]))
            }
            batches.append(objects.send("migrate.run batch \(batches.count + 1)", writes))
        }
        let token = "run-\(round)"
        burst.request(method, ["cache": .string(Self.cache), "batchSize": .int(batchSize), "workDoneToken": .string(token)],
                      writes: (objects, []))
        var reports = 0
        // `begin`, a report after each full batch and one at the end, then `end`.
        burst.expectNotifications(1 + Self.keys.count / batchSize + 1 + 1) { [objects] message in
            guard message["method"] == "$/progress", message["params"]?["token"] == .string(token) else { return "unexpected message: \(message)" }
            if message["params"]?["value"]?["kind"] == "report" {
                reports += 1
                objects.acknowledge(batches[min(reports, batches.count) - 1])
            }
            return nil
        }
        for _ in 0..<random.int(50...300) {
            sequence += 1
            let key = "s\(random.int(0...63))"
            let value: JSON = ["seq": .int(sequence)]
            burst.request("cache.set", ["cache": .string(Self.sideCache), "key": .string(key), "value": value],
                          writes: (side, [.init(key: key, value: value)]))
        }
        return burst
    }

    func read(_ ledger: WriteLedger, from larder: LarderProcess) -> [String: JSON]? {
        ledger === objects
            ? larder.objects(cache: Self.cache, keys: ledger.keys)
            : larder.entries(cache: Self.sideCache, keys: ledger.keys)?.compactMapValues { $0["value"] }
    }
}
