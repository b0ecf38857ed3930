import LarderSystem
import LarderTestSupport
import LarderJSON
import XCTest

/// Four processes on one store, each driven by a client of its own that sends
/// one request at a time (each is then a burst of its own, SPEC 3.1): cache,
/// object and entity writes and reads, at once. No read misses a write
/// another process acknowledged before the read was sent, and a fresh
/// process finds every item as its last acknowledged write left it.
extension ManyProcessesTests {
    static let processCount = 4
    /// Items of each kind; item n is written by process n % processCount, and read by all.
    static let itemsPerKind = 8

    func testMixedReadsAndWritesOfFourProcesses() throws {
        let store = freshStore()
        let clients = try start(Self.processCount, on: store).enumerated().map { WorkloadClient(index: $0, process: $1) }
        let operations = Self.rounds * 50
        simultaneously(clients.count) { k in
            let client = clients[k]
            client.prepare()
            for _ in 0..<operations { client.step() }
        }
        var history = AccessHistory()
        for c in clients {
            XCTAssertTrue(c.problems.isEmpty, "process \(c.index):\n" + c.problems.prefix(20).joined(separator: "\n"))
            for w in c.writes { history.record(w) }
            for r in c.reads { history.record(r) }
            c.process.closeStdin()
            XCTAssertEqual(c.process.waitForExit(), 0, "stderr: \(c.process.stderrAtEnd(timeout: 1))")
        }
        let stale = history.staleReads
        XCTAssertTrue(stale.isEmpty, "\(stale.count) of \(history.reads.count) reads were stale:\n" + stale.prefix(20).joined(separator: "\n"))
        XCTAssertGreaterThan(history.writeCount, operations, "too few writes were acknowledged to judge anything")

        let fresh = WorkloadClient(index: Self.processCount, process: try start(1, on: store)[0])
        for item in history.items {
            let found = fresh.read(item)
            XCTAssertTrue(fresh.problems.isEmpty, fresh.problems.joined(separator: "\n"))
            XCTAssertEqual(found, history.lastValue(of: item), "\(item): the last acknowledged write was lost")
        }
        assertCleanExit(fresh.process)
    }
}

/// One process and the client driving it from a thread of its own; what it
/// saw is read by the test's thread once every client is done.
final class WorkloadClient: @unchecked Sendable {
    typealias Item = AccessHistory.Item

    let index: Int
    let process: LarderProcess
    private var random: SeededRandom
    private var nextSeq: [Item: Int] = [:]
    private var nextID = 0
    private(set) var writes: [AccessHistory.Write] = []
    private(set) var reads: [AccessHistory.Read] = []
    /// Answers that were neither a result nor -31002 (store locked), or never came.
    private(set) var problems: [String] = []

    init(index: Int, process: LarderProcess) {
        self.index = index
        self.process = process
        random = SeededRandom(seed: UInt64(index + 1))
    }

    /// What every process of an application does when it starts: the same
    /// schema and model registered by all, each creating them if it is first.
    func prepare() {
        for (method, params) in [("schema.register", ManyProcessesTests.tick), ("entity.define", ManyProcessesTests.ledger)] {
            var answer = call(method, params)
            // -31002 says to try again; it is the one failure contention may cause.
            while answer?.errorCode == -31002 { answer = call(method, params) }
            if let answer, answer["result"] == nil { problems.append("\(method): \(answer)") }
        }
    }

    /// One operation, chosen at random: a write of one of this process's items, or a read of anyone's.
    func step() {
        let kind = Int(random.next(upperBound: UInt64(100)))
        let anyone = Int(random.next(upperBound: UInt64(ManyProcessesTests.itemsPerKind)))
        // Mostly reads: a process reads an item into its memory tier, and
        // reads it again after another process replaced it, only when it has
        // not written meanwhile (its own write transaction catches up too).
        switch kind {
        case 0..<12: write([.entry(ownItem())])
        case 12..<18: write([.entry(ownItem()), .entry(ownItem())])
        case 18..<21: write([.entry(ownItem())], removing: true)
        case 21..<56: _ = read(.entry(anyone))
        case 56..<62: write([.object(ownItem())])
        case 62..<80: _ = read(.object(anyone))
        case 80..<86: write([.record(ownItem())])
        default: _ = read(.record(anyone))
        }
    }

    /// One of the items this process writes.
    private func ownItem() -> Int {
        let owned = ManyProcessesTests.itemsPerKind / ManyProcessesTests.processCount
        return Int(random.next(upperBound: UInt64(owned))) * ManyProcessesTests.processCount + index
    }

    /// Writes the next seq of each item (one kind), or removes an entry, and records it if acknowledged.
    private func write(_ items: [Item], removing: Bool = false) {
        var seqs: [Item: Int] = [:]
        for item in items where seqs[item] == nil {
            nextSeq[item, default: 0] += 1
            seqs[item] = nextSeq[item]
        }
        let (method, params) = Self.request(writing: seqs.sorted { $0.value < $1.value }, removing: removing)
        let sent = MonotonicClock.seconds()
        guard let answer = call(method, params), answer["result"] != nil else { return }
        let answered = MonotonicClock.seconds()
        for (item, seq) in seqs {
            writes.append(.init(item: item, seq: seq, removes: removing, sentAt: sent, answeredAt: answered))
        }
    }

    private static func request(writing seqs: [(key: Item, value: Int)], removing: Bool) -> (String, JSON) {
        switch seqs[0].key {
        case .entry where removing:
            return ("cache.remove", ["cache": "kv", "key": key(seqs[0].key)])
        case .entry where seqs.count > 1:
            return ("cache.setMany", ["cache": "kv", "entries": .array(seqs.map { ["key": key($0.key), "value": .int($0.value)] })])
        case .entry:
            return ("cache.set", ["cache": "kv", "key": key(seqs[0].key), "value": .int(seqs[0].value)])
        case .object:
            return ("object.put", ["cache": "objects", "key": key(seqs[0].key), "type": "Tick", "value": ["seq": .int(seqs[0].value)]])
        case .record(let n):
            return ("entity.upsert", ["entity": "Account", "records": [["id": .int(n), "seq": .int(seqs[0].value)]]])
        }
    }

    private static func key(_ item: Item) -> JSON {
        switch item {
        case .entry(let n): .string("k\(n)")
        case .object(let n): .string("o\(n)")
        case .record(let n): .int(n)
        }
    }

    /// Reads an item and records what was found (nil when absent, or when the read failed).
    func read(_ item: Item) -> Int? {
        let sent = MonotonicClock.seconds()
        let answer: JSON?
        switch item {
        case .entry:
            answer = call("cache.get", ["cache": "kv", "key": Self.key(item)])?["result"].map { $0["value"] ?? .null }
        case .object:
            answer = call("object.get", ["cache": "objects", "key": Self.key(item)])?["result"].map { $0["value"]?["seq"] ?? .null }
        case .record:
            answer = call("entity.get", ["entity": "Account", "id": Self.key(item)])?["result"].map { $0["record"]?["seq"] ?? .null }
        }
        guard let answer else { return nil }
        let found = answer.numberValue?.int
        reads.append(.init(item: item, found: found, reader: index, sentAt: sent, answeredAt: MonotonicClock.seconds()))
        return found
    }

    /// Sends a request and waits for its answer; anything but a result or -31002 is a problem.
    private func call(_ method: String, _ params: JSON) -> JSON? {
        nextID += 1
        let id = JSON.int(nextID)
        process.post(method, params, id: id)
        guard let answer = process.answer(id: id) else {
            problems.append("\(method) \(params): no answer; stderr: \(process.stderrText)")
            return nil
        }
        if !answer.isResultOrLocked { problems.append("\(method) \(params): \(answer)") }
        return answer
    }
}
