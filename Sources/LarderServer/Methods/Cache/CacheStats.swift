import LarderCore
import LarderJSON
import LarderRPC

/// `cache.stats`: per tier, what a cache holds and how it has been used since the process started.
enum CacheStatsMethod: MethodHandler {
    static let method = "cache.stats"

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let cache = try r.server.existingCache(r)
        let s = cache.stats
        let disk = cache.diskTotals
        return .result([
            "cache": .string(cache.name),
            "memory": [
                "count": .int(cache.memoryCount), "bytes": .int(cache.memoryBytes),
                "hits": .int(s.memory.hits), "misses": .int(s.memory.misses), "evictions": .int(s.memory.evictions),
            ],
            "disk": [
                "count": .int(disk.count), "bytes": .int(disk.bytes),
                "hits": .int(s.disk.hits), "misses": .int(s.disk.misses), "evictions": .int(s.disk.evictions),
            ],
        ])
    }
}
