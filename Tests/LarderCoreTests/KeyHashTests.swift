import XCTest
@testable import LarderCore

final class KeyHashTests: XCTestCase {
    private func hash(_ group: String, _ key: String) -> Int {
        var group = group, key = key
        return group.withUTF8 { g in key.withUTF8 { k in KeyHash.of(group: g, key: k) } }
    }

    func testTheSameBytesHashAlikeAndSplitsDiffer() {
        XCTAssertEqual(hash("g", "key"), hash("g", "key"))
        XCTAssertEqual(EntryKey(group: "g", key: "key").bytesHash, hash("g", "key"))
        XCTAssertNotEqual(hash("ab", "c"), hash("a", "bc"))
        XCTAssertNotEqual(hash("", "abc"), hash("abc", ""))
        XCTAssertNotEqual(hash("", ""), hash("", "\u{0}"))
    }

    /// Every length from 0 to 40 across both parts goes through the word
    /// and tail paths; none may lose a byte.
    func testEveryByteCounts() {
        for length in 1...40 {
            let text = String((0..<length).map { Character(Unicode.Scalar(UInt8(97 + $0 % 26))) })
            for split in 0...length {
                let group = String(text.prefix(split)), key = String(text.dropFirst(split))
                var changed = Array(key.utf8)
                guard !changed.isEmpty else { continue }
                changed[changed.count - 1] ^= 1
                XCTAssertNotEqual(hash(group, key), hash(group, String(decoding: changed, as: UTF8.self)), "\(split)+\(length - split)")
            }
        }
    }

    func testDistinctKeysSpreadAcrossBuckets() {
        var hashes = Set<Int>()
        var buckets = [Int](repeating: 0, count: 256)
        for n in 0..<100_000 {
            let h = hash("", "key-\(n)")
            hashes.insert(h)
            buckets[h & 255] += 1
        }
        XCTAssertEqual(hashes.count, 100_000)
        // 390 a bucket on average; a fair hash stays well within a third of that.
        XCTAssertLessThan(buckets.max()!, 520)
        XCTAssertGreaterThan(buckets.min()!, 260)
    }
}
