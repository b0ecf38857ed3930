import XCTest
import LarderRPC

/// Client text an error repeats is cut at 200 bytes, never inside a character.
final class EchoedTextTests: XCTestCase {
    func testTextUpTo200BytesIsRepeatedWhole() {
        XCTAssertEqual("".echoed, "")
        XCTAssertEqual("cache.gett".echoed, "cache.gett")
        let exactly = String(repeating: "a", count: 200)
        XCTAssertEqual(exactly.echoed, exactly)
        XCTAssertEqual(exactly.dropFirst(0).echoed, exactly, "a Substring too")
    }

    func testLongerTextIsCutAt200BytesWithAnEllipsis() {
        XCTAssertEqual(String(repeating: "a", count: 201).echoed, String(repeating: "a", count: 200) + "…")
        XCTAssertEqual(String(repeating: "a", count: 10 << 20).echoed.utf8.count, 200 + "…".utf8.count)
    }

    func testTheCutFallsWhereACharacterBegins() {
        // 199 ASCII bytes, then a character of 2, 3 or 4 bytes across the limit.
        for wide in ["é", "€", "🍞"] {
            let text = String(repeating: "a", count: 199) + wide + "tail"
            XCTAssertEqual(text.echoed, String(repeating: "a", count: 199) + "…", wide)
        }
        XCTAssertEqual(String(repeating: "🍞", count: 60).echoed, String(repeating: "🍞", count: 50) + "…")
    }
}
