import CSQLite
import XCTest
@testable import LarderCore

/// The library is set up before the first connection opens, or the setting
/// is silently refused: with memory statistics off, SQLite counts nothing.
final class SQLiteLibraryTests: StoreTestCase {
    func testMemoryStatisticsAreOffOnceAStoreIsUsed() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        for k in 0..<100 { try cache.put("k\(k)", String(repeating: "v", count: 1_000)) }
        try store.commit()
        XCTAssertEqual(try cache.text("k7"), String(repeating: "v", count: 1_000))
        XCTAssertEqual(sqlite3_memory_used(), 0, "SQLite still counts its allocations")
    }
}
