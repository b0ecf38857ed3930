/// An open-addressing table from a key's hash to where the key is kept
/// (a position in the memory tier's nodes).
///
/// The tier keeps its own table rather than a `Dictionary` so that a
/// request's key can be looked up from the bytes it arrived in: a
/// `Dictionary` needs a key value to look up with, and making one for every
/// get (copying and hashing the text) cost more than the rest of a hit.
/// Comparing keys is left to the caller, who knows what it is looking for.
///
/// Linear probing, at most half full, with backward-shift deletion (no
/// tombstones, so lookups stay short however many keys come and go).
///
/// A slot is 8 bytes, the low half of the hash and the position: in a large
/// tier the table outgrows the processor's caches, and each hit reads one
/// slot at random. The home slot comes from those same 32 bits (no table
/// has more slots than that), and a match on them is confirmed by the caller.
struct KeyIndex {
    private struct Slot {
        var hash: UInt32
        /// -1 when the slot is empty.
        var position: Int32
        static let empty = Slot(hash: 0, position: -1)
    }

    private var slots = [Slot](repeating: .empty, count: 16)
    private var mask = 15
    private(set) var count = 0

    /// The slot and position of the key with `hash` for which `matches(position)` holds.
    @inline(__always)
    func find(hash fullHash: Int, _ matches: (Int) -> Bool) -> (slot: Int, position: Int)? {
        let hash = UInt32(truncatingIfNeeded: fullHash)
        var i = Int(hash) & mask
        while true {
            let s = slots[i]
            guard s.position >= 0 else { return nil }
            if s.hash == hash && matches(Int(s.position)) { return (i, Int(s.position)) }
            i = (i &+ 1) & mask
        }
    }

    /// Adds a key known not to be present.
    mutating func insert(hash: Int, position: Int) {
        if (count + 1) * 2 > slots.count { grow() }
        place(Slot(hash: UInt32(truncatingIfNeeded: hash), position: Int32(position)))
        count += 1
    }

    /// Empties `slot` (from `find`), moving later keys of the same run back
    /// so that every key stays reachable from its home slot.
    mutating func remove(slot: Int) {
        var hole = slot
        var i = slot
        while true {
            i = (i &+ 1) & mask
            let s = slots[i]
            guard s.position >= 0 else { break }
            let home = Int(s.hash) & mask
            // Moves back unless its home lies cyclically within (hole, i].
            let stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i)
            if !stays {
                slots[hole] = s
                hole = i
            }
        }
        slots[hole] = .empty
        count -= 1
    }

    mutating func removeAll() {
        slots = [Slot](repeating: .empty, count: 16)
        mask = 15
        count = 0
    }

    /// Every position held, in no particular order.
    var positions: [Int] {
        slots.compactMap { $0.position >= 0 ? Int($0.position) : nil }
    }

    private mutating func place(_ slot: Slot) {
        var i = Int(slot.hash) & mask
        while slots[i].position >= 0 { i = (i &+ 1) & mask }
        slots[i] = slot
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: .empty, count: old.count * 2)
        mask = slots.count - 1
        for s in old where s.position >= 0 { place(s) }
    }
}
