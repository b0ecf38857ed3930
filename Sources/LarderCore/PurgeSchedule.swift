/// When each cache holding entries that expire is next due for the
/// background purge (`Cache.purgeDue`), soonest first, so that a pass takes
/// only the caches whose time has come, however many are loaded. A pass
/// over every cache once a second — about 1 ms of work, then again at once —
/// kept an idle sidecar with 44,000 caches 60% busy.
///
/// A cache rescheduled sooner, or dropped, leaves its earlier entry behind:
/// the purge skips an entry whose time is no longer the cache's.
struct PurgeSchedule {
    /// A binary min-heap on `due`.
    private var heap: [(due: Int64, cache: Cache)] = []

    mutating func add(_ cache: Cache, at due: Int64) {
        heap.append((due, cache))
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard heap[i].due < heap[parent].due else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    /// Whether an entry is due at or before `now`.
    func hasDue(by now: Int64) -> Bool { heap.first.map { $0.due <= now } ?? false }

    /// The entry due soonest, taken out, if it is due at or before `now`.
    mutating func next(dueBy now: Int64) -> (due: Int64, cache: Cache)? {
        guard hasDue(by: now) else { return nil }
        let first = heap[0]
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first }
        heap[0] = last
        var i = 0
        while true {
            let left = 2 * i + 1, right = left + 1
            var least = i
            if left < heap.count && heap[left].due < heap[least].due { least = left }
            if right < heap.count && heap[right].due < heap[least].due { least = right }
            if least == i { return first }
            heap.swapAt(i, least)
            i = least
        }
    }
}
