import XCTest
@testable import LarderCore

final class KeyIndexTests: XCTestCase {
    /// Hashes from a tiny range collide and share runs, which is where
    /// linear probing and backward-shift deletion can go wrong.
    func testAgreesWithADictionaryThroughInsertsAndRemovals() {
        var index = KeyIndex()
        var model: [Int: Int] = [:] // position -> hash
        var rng = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            let position = Int.random(in: 0..<600, using: &rng)
            let hash = position % 37 &* 0x9E37_79B9 // many positions per hash
            let found = index.find(hash: hash) { $0 == position }
            XCTAssertEqual(found?.position, model[position] == nil ? nil : position, "step \(step)")
            if let found {
                index.remove(slot: found.slot)
                model[position] = nil
            } else {
                index.insert(hash: hash, position: position)
                model[position] = hash
            }
            XCTAssertEqual(index.count, model.count)
        }
        for (position, hash) in model {
            XCTAssertEqual(index.find(hash: hash) { $0 == position }?.position, position)
        }
        XCTAssertEqual(Set(index.positions), Set(model.keys))
        index.removeAll()
        XCTAssertEqual(index.count, 0)
        XCTAssertTrue(index.positions.isEmpty)
    }

    func testRunsThatWrapAroundTheEndStayReachable() {
        var index = KeyIndex()
        // Eight positions (the most a fresh table holds before growing), all with the last home slot.
        for p in 0..<8 { index.insert(hash: 15, position: p) }
        for p in [0, 3, 6] {
            guard let f = index.find(hash: 15, { $0 == p }) else { return XCTFail("\(p) not found") }
            index.remove(slot: f.slot)
        }
        for p in [1, 2, 4, 5, 7] { XCTAssertEqual(index.find(hash: 15) { $0 == p }?.position, p) }
        for p in [0, 3, 6] { XCTAssertNil(index.find(hash: 15) { $0 == p }) }
    }
}
