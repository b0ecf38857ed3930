/// A least-recently-used map from keys to entries, bounded by count and bytes.
///
/// Nodes live in one array linked by index, so a hit costs one hash lookup
/// and a few integer writes, with no allocation. The recency links are kept
/// apart from the nodes, in an array of 8 bytes a node: a hit rewrites the
/// links of up to three other nodes, and in a large tier those would each be
/// a cache miss if they sat in the nodes themselves.
final class MemoryTier {
    private struct Node {
        var key: EntryKey
        var entry: Entry
    }

    /// Positions of the next newer and older nodes; -1 for none.
    private struct Links {
        var newer: Int32
        var older: Int32
    }

    private var nodes: [Node] = []
    private var links: [Links] = []
    private var freeSlots: [Int] = []
    private var index = KeyIndex()
    /// Most recently used.
    private var newest = -1
    /// Least recently used: evicted first.
    private var oldest = -1

    private(set) var bytes = 0
    var count: Int { index.count }
    /// Counts the calls that put, change or remove entries (not uses):
    /// unchanged, nothing was put in or taken out meanwhile.
    private(set) var changes = 0

    /// The entry, marked as most recently used.
    func get(_ key: EntryKey) -> Entry? {
        use(key).map { nodes[$0].entry }
    }

    /// Where the entry under `key` is, marked as most recently used.
    func use(_ key: EntryKey) -> Int? {
        guard let i = position(of: key) else { return nil }
        moveToNewest(i)
        return i
    }

    /// Where the entry under `key` in `group` (given as UTF-8) is, marked as
    /// most recently used; `entry(at:)` reads it. (A position rather than an
    /// `Entry?`: destroying an optional entry went through the runtime's
    /// generic value witnesses, on every hit.)
    func use(group: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>) -> Int? {
        let hash = EntryKey.hash(group: group, key: key)
        guard let (_, i) = index.find(hash: hash, { nodes[$0].key.is(group: group, key: key) }) else { return nil }
        moveToNewest(i)
        return i
    }

    func entry(at position: Int) -> Entry { nodes[position].entry }

    private func position(of key: EntryKey) -> Int? {
        index.find(hash: key.bytesHash) { nodes[$0].key == key }?.position
    }

    /// The disk row and size of the entry under `key`, without changing the order.
    func row(of key: EntryKey) -> (id: Int64, size: Int)? {
        guard let i = position(of: key), nodes[i].entry.diskID != 0 else { return nil }
        return (nodes[i].entry.diskID, nodes[i].entry.size)
    }

    func contains(_ key: EntryKey) -> Bool { position(of: key) != nil }

    /// Looks without changing the order.
    func peek(_ key: EntryKey) -> Entry? {
        position(of: key).map { nodes[$0].entry }
    }

    /// Replaces the entry's metadata in place, keeping its position.
    func update(_ key: EntryKey, _ change: (inout Entry) -> Void) {
        changes &+= 1
        guard let i = position(of: key) else { return }
        let before = nodes[i].entry.size
        change(&nodes[i].entry)
        bytes += nodes[i].entry.size - before
    }

    /// Inserts or replaces as most recently used.
    func put(_ key: EntryKey, _ entry: Entry) {
        changes &+= 1
        if let i = position(of: key) {
            bytes += entry.size - nodes[i].entry.size
            nodes[i].entry = entry
            moveToNewest(i)
            return
        }
        let node = Node(key: key, entry: entry)
        let link = Links(newer: -1, older: Int32(newest))
        let i: Int
        if let slot = freeSlots.popLast() {
            nodes[slot] = node
            links[slot] = link
            i = slot
        } else {
            nodes.append(node)
            links.append(link)
            i = nodes.count - 1
        }
        if newest >= 0 { links[newest].newer = Int32(i) }
        newest = i
        if oldest < 0 { oldest = i }
        index.insert(hash: key.bytesHash, position: i)
        bytes += entry.size
    }

    @discardableResult
    func remove(_ key: EntryKey) -> Entry? {
        changes &+= 1
        guard let (slot, i) = index.find(hash: key.bytesHash, { nodes[$0].key == key }) else { return nil }
        index.remove(slot: slot)
        unlink(i)
        let entry = nodes[i].entry
        bytes -= entry.size
        nodes[i].entry.bytes = []
        freeSlots.append(i)
        return entry
    }

    /// Removes least-recently-used entries until within both limits (0 = no
    /// limit), handing each key to `evicted`, oldest first.
    func evict(toCount maxCount: Int, bytes maxBytes: Int, _ evicted: (EntryKey, Entry?) -> Void) {
        while oldest >= 0, (maxCount > 0 && count > maxCount) || (maxBytes > 0 && bytes > maxBytes) {
            let key = nodes[oldest].key
            let entry = remove(key)
            evicted(key, entry)
        }
    }

    /// Every entry, most recently used first.
    func entriesNewestFirst() -> [(key: EntryKey, entry: Entry)] {
        var result: [(key: EntryKey, entry: Entry)] = []
        result.reserveCapacity(count)
        var i = newest
        while i >= 0 {
            result.append((nodes[i].key, nodes[i].entry))
            i = Int(links[i].older)
        }
        return result
    }

    /// Every key, or those of one group.
    func keys(inGroup group: String? = nil) -> [EntryKey] {
        let all = index.positions.map { nodes[$0].key }
        guard let group else { return all }
        var wanted = group
        return wanted.withUTF8 { g in all.filter { $0.withGroupUTF8 { $0.elementsEqual(g) } } }
    }

    func removeAll() {
        changes &+= 1
        nodes = []
        links = []
        freeSlots = []
        index.removeAll()
        newest = -1
        oldest = -1
        bytes = 0
    }

    private func unlink(_ i: Int) {
        let l = links[i]
        if l.newer >= 0 { links[Int(l.newer)].older = l.older } else { newest = Int(l.older) }
        if l.older >= 0 { links[Int(l.older)].newer = l.newer } else { oldest = Int(l.newer) }
        links[i] = Links(newer: -1, older: -1)
    }

    private func moveToNewest(_ i: Int) {
        guard newest != i else { return }
        unlink(i)
        links[i] = Links(newer: -1, older: Int32(newest))
        if newest >= 0 { links[newest].newer = Int32(i) }
        newest = i
        if oldest < 0 { oldest = i }
    }
}
