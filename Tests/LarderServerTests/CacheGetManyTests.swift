import LarderJSON
import XCTest

/// `cache.getMany` compares keys byte for byte, as every other method does.
final class CacheGetManyTests: XCTestCase {
    func testCanonicallyEquivalentKeysAreTwoKeys() throws {
        let precomposed = "\u{E9}", decomposed = "e\u{301}"
        XCTAssertEqual(precomposed, decomposed, "Swift's String == takes them for one")
        let out = try serveSession([
            request(1, "cache.set", #"{"key":"\#(precomposed)","value":1}"#),
            request(2, "cache.set", #"{"key":"\#(decomposed)","value":2}"#),
            request(3, "cache.getMany", #"{"keys":["\#(precomposed)","\#(decomposed)","\#(precomposed)"]}"#),
        ].joined(separator: "\n") + "\n")
        let answers = try out.split(separator: "\n").map { try JSONParser.parse(Array($0.utf8)) }
        let entries = try XCTUnwrap(answers.last?["result"]?["entries"]?.objectValue)
        XCTAssertEqual(entries.members.map { Array($0.key.utf8) }, [Array(precomposed.utf8), Array(decomposed.utf8)],
                       "one member per distinct key, in the order first asked: \(out)")
        XCTAssertEqual(entries.members.map { $0.value["value"] }, [1, 2])
    }
}
