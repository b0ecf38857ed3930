/// What clients of several processes wrote and read, with when each request
/// was sent and answered (one monotonic clock), and the checks SPEC §13
/// promises of it.
///
/// Every item has one writer, which numbers its writes 1, 2, 3… and waits for
/// each answer before sending the next request, so an item's acknowledged
/// writes are in the order of their numbers. A value read is the number of
/// the write that stored it; an absent item reads as nil.
struct AccessHistory {
    /// Something written and read: an entry, an object or an entity record, by number.
    enum Item: Hashable, CustomStringConvertible {
        case entry(Int), object(Int), record(Int)

        var description: String {
            switch self {
            case .entry(let n): "entry k\(n)"
            case .object(let n): "object o\(n)"
            case .record(let n): "record \(n)"
            }
        }
    }

    /// A write that was answered with success: it stored `seq`, or removed the item.
    struct Write {
        let item: Item
        let seq: Int
        let removes: Bool
        let sentAt: Double
        let answeredAt: Double
    }

    /// A read and what it found: the seq stored, or nil for an absent item.
    struct Read {
        let item: Item
        let found: Int?
        let reader: Int
        let sentAt: Double
        let answeredAt: Double
    }

    private var writes: [Item: [Write]] = [:]
    private(set) var reads: [Read] = []

    mutating func record(_ w: Write) { writes[w.item, default: []].append(w) }
    mutating func record(_ r: Read) { reads.append(r) }

    var items: [Item] { Array(writes.keys) }
    var writeCount: Int { writes.values.reduce(0) { $0 + $1.count } }

    /// Reads that missed a write acknowledged before they were sent: each must
    /// find that write's value or a later one, and never a value not yet sent.
    var staleReads: [String] {
        reads.compactMap { r in
            let written = writes[r.item] ?? []
            let floor = written.filter { $0.answeredAt < r.sentAt }.map(\.seq).max() ?? 0
            let possible = written.filter { $0.seq >= floor && $0.sentAt < r.answeredAt }
            if let found = r.found {
                if possible.contains(where: { $0.seq == found && !$0.removes }) { return nil }
            } else if floor == 0 || possible.contains(where: \.removes) {
                return nil
            }
            return "process \(r.reader) read \(r.item) as \(r.found.map(String.init) ?? "absent") after write \(floor) was acknowledged"
        }
    }

    /// What the last acknowledged write of `item` left: its seq, or nil when it removed the item (or none was made).
    func lastValue(of item: Item) -> Int? {
        guard let last = writes[item]?.max(by: { $0.seq < $1.seq }), !last.removes else { return nil }
        return last.seq
    }
}
