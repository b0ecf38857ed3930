import LarderJSON

/// What a crash loop wrote to one set of keys, and the check that a store
/// restarted after `kill -9` holds exactly what it may.
///
/// Writes are sent in *batches*, each the unit the server applies entirely
/// or not at all: a `cache.set` or `object.put` is a batch of one; a
/// `cache.setMany`, an `entity.apply` or `entity.upsert` and each batch of a
/// `migrate.run` are batches of several. The server commits in the order it
/// handles requests and answers a write only after the commit that holds it
/// (SPEC 3.1, 3.3), so after a crash the store must hold the state after some
/// prefix of the batches sent: every batch acknowledged and perhaps some
/// after, never part of a batch, and never a value older than one the store
/// held before. Every value written is unique to its write, so the value a
/// key shows says which write, if any, put it there.
final class WriteLedger {
    struct Write {
        let key: String
        let value: JSON
    }

    private struct Batch {
        let label: String
        let writes: [Write]
    }

    /// What the store held at the last check, plus what requests answered
    /// since outside a burst wrote; a key without a value is absent.
    private(set) var durable: [String: JSON] = [:]
    /// Every key ever written, in the order first written.
    private(set) var keys: [String] = []
    private var known: Set<String> = []
    /// The batches of the round under way, in the order they were sent.
    private var batches: [Batch] = []
    /// One past the last batch acknowledged: every batch before it committed,
    /// since commits follow the order of the batches.
    private var acknowledgedPrefix = 0

    /// Notes a write whose success answer has already been read.
    func recordDurable(_ key: String, _ value: JSON) {
        note(key)
        durable[key] = value
    }

    /// Notes a batch about to be sent; returns its number in this round.
    func send(_ label: String, _ writes: [Write]) -> Int {
        for w in writes { note(w.key) }
        batches.append(Batch(label: label, writes: writes))
        return batches.count - 1
    }

    /// Notes that the server acknowledged batch `batch` (and so every batch before it).
    func acknowledge(_ batch: Int) {
        acknowledgedPrefix = max(acknowledgedPrefix, batch + 1)
    }

    private func note(_ key: String) {
        if known.insert(key).inserted { keys.append(key) }
    }

    /// The writes of acknowledged batches, counted so far this round.
    var acknowledgedWrites: Int { batches[..<acknowledgedPrefix].reduce(0) { $0 + $1.writes.count } }

    /// Where a key's value puts the end of the committed prefix: at least
    /// `lower` batches and at most `upper` batches committed.
    private struct Bound {
        let key: String
        let shown: String
        let lower: Int
        let upper: Int
    }

    /// Checks what the restarted store holds under every key of the ledger
    /// (`observed`; an absent key has no member). On success the observed
    /// state becomes the durable one and the round's batches are forgotten;
    /// on failure, says what is wrong.
    func check(_ observed: [String: JSON]) -> String? {
        // The batches of this round that wrote each key, with the value each left.
        var writesByKey: [String: [(batch: Int, value: JSON)]] = [:]
        for (b, batch) in batches.enumerated() {
            for w in batch.writes {
                if writesByKey[w.key]?.last?.batch == b { writesByKey[w.key]!.removeLast() }
                writesByKey[w.key, default: []].append((b, w.value))
            }
        }
        var bounds: [Bound] = []
        for key in keys {
            let value = observed[key]
            let shown = Self.shown(value)
            let writes = writesByKey[key] ?? []
            if value == durable[key] {
                bounds.append(Bound(key: key, shown: "\(shown), its value before this round", lower: 0, upper: writes.first?.batch ?? batches.count))
            } else if let i = writes.firstIndex(where: { $0.value == value }) {
                let b = writes[i].batch
                let next = i + 1 < writes.count ? writes[i + 1].batch : batches.count
                bounds.append(Bound(key: key, shown: "\(shown), written by \(batches[b].label)", lower: b + 1, upper: next))
            } else {
                let before = Self.shown(durable[key])
                return "\(key) holds \(shown), which is neither what it held before this round (\(before)) nor a value written since: "
                    + "a write was undone, or an older value came back"
            }
        }
        let highestLower = bounds.max { $0.lower < $1.lower }
        let lowestUpper = bounds.min { $0.upper < $1.upper }
        if let u = lowestUpper, u.upper < acknowledgedPrefix {
            return "\(batches[u.upper].label) was acknowledged (with the \(acknowledgedPrefix) first of the round's \(batches.count) batches), "
                + "yet \(u.key) holds \(u.shown): the acknowledged write is lost"
        }
        if let l = highestLower, let u = lowestUpper, l.lower > u.upper {
            let later = batches[l.lower - 1].label, earlier = batches[u.upper].label
            let what = l.lower - 1 == u.upper
                ? "\(later) is partly visible"
                : "\(later) is visible but \(earlier), sent before it, is not"
            return "\(what): \(l.key) holds \(l.shown), but \(u.key) holds \(u.shown)"
        }
        for key in keys { durable[key] = observed[key] }
        batches = []
        acknowledgedPrefix = 0
        return nil
    }

    /// A value for a failure message: its JSON, shortened.
    private static func shown(_ value: JSON?) -> String {
        guard let text = value?.description else { return "nothing" }
        return text.count <= 160 ? text : text.prefix(160) + "…"
    }
}
