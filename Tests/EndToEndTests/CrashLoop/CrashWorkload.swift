import LarderTestSupport
import LarderJSON
import XCTest

/// One kind of write, as a crash loop drives it: what is set up before each
/// burst, what a burst sends, and how the store's state is read back.
protocol CrashWorkload: AnyObject {
    /// The write method under test, as the summary and failures name it.
    var method: String { get }
    /// The ledgers the workload writes to; each is checked after every restart.
    var ledgers: [WriteLedger] { get }
    /// Requests answered before the burst of round `round` (definitions,
    /// data the burst works on); returns what went wrong, if anything.
    func prepare(_ larder: LarderProcess, round: Int, random: inout SeededRandom) -> String?
    /// The pipelined requests of round `round`, noted in the ledgers.
    func burst(round: Int, random: inout SeededRandom) -> Burst
    /// What the store holds under the keys of `ledger`, as the ledger writes
    /// it (an absent key has no member); nil if it could not be read.
    func read(_ ledger: WriteLedger, from larder: LarderProcess) -> [String: JSON]?
    /// What is wrong with the state just read from `ledger`'s keys beyond
    /// what the ledger checks (say, a relationship that leads nowhere).
    func consistencyProblems(in observed: [String: JSON], of ledger: WriteLedger) -> [String]
}

extension CrashWorkload {
    func prepare(_ larder: LarderProcess, round: Int, random: inout SeededRandom) -> String? { nil }
    func consistencyProblems(in observed: [String: JSON], of ledger: WriteLedger) -> [String] { [] }
}

extension LarderProcess {
    /// How many keys or identifiers one read asks for.
    private static let readChunk = 500

    /// The entries found under `keys` of one cache, by key, read with `cache.getMany`.
    func entries(cache: String, keys: [String]) -> [String: JSON]? {
        var found: [String: JSON] = [:]
        for start in stride(from: 0, to: keys.count, by: Self.readChunk) {
            let chunk = keys[start..<min(keys.count, start + Self.readChunk)]
            let params: JSON = ["cache": .string(cache), "keys": .array(chunk.map { .string($0) })]
            guard let entries = request("cache.getMany", params: params, timeout: KillPoint.patience)?["result"]?["entries"]?.objectValue else {
                return nil
            }
            for (key, entry) in entries.members where entry["found"] == true { found[key] = entry }
        }
        return found
    }

    /// The objects found under `keys` of one cache, as `JSON.storedObject`s,
    /// read with `cache.getMany`, which does not migrate them.
    func objects(cache: String, keys: [String]) -> [String: JSON]? {
        entries(cache: cache, keys: keys)?.mapValues {
            .storedObject(type: $0["type"]?.stringValue ?? "(none)", version: $0["version"]?.stringValue ?? "(none)", $0["value"] ?? .null)
        }
    }

    /// The records found under `ids` of one entity, by identifier, read with `entity.getMany`.
    func records(entity: String, ids: [String]) -> [String: JSON]? {
        var found: [String: JSON] = [:]
        for start in stride(from: 0, to: ids.count, by: Self.readChunk) {
            let chunk = ids[start..<min(ids.count, start + Self.readChunk)]
            let params: JSON = ["entity": .string(entity), "ids": .array(chunk.map { .string($0) })]
            guard let records = request("entity.getMany", params: params, timeout: KillPoint.patience)?["result"]?["records"]?.arrayValue else {
                return nil
            }
            for record in records {
                if let id = record["id"]?.stringValue { found[id] = record }
            }
        }
        return found
    }

    /// Sends `requests` pipelined and waits for every answer; returns the
    /// first that is not a success, or what else went wrong, if anything.
    func requestAll(_ requests: [(method: String, params: JSON)]) -> String? {
        var text = ""
        for (i, r) in requests.enumerated() {
            let message: JSON = ["jsonrpc": "2.0", "id": .int(i + 1), "method": .string(r.method), "params": r.params]
            text += message.description + "\n"
        }
        let writer = sendInBackground(prefix: Array(text.utf8), filler: 0, fillerCount: 0, suffix: [])
        defer { _ = writer.wait(timeout: KillPoint.patience) }
        for _ in requests {
            guard let line = readLine(timeout: KillPoint.patience), let answer = try? JSONParser.parse(line) else {
                return "no answer within \(Int(KillPoint.patience)) s; stderr: \(stderrText)"
            }
            if answer["result"] == nil { return "\(answer)" }
        }
        return nil
    }
}

extension JSON {
    /// An object as a crash loop's ledger holds it: its type and version as stored, and its plain value.
    static func storedObject(type: String, version: String, _ value: JSON) -> JSON {
        ["type": .string(type), "version": .string(version), "value": value]
    }
}
