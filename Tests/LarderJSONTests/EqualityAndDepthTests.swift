import XCTest
@testable import LarderJSON

final class EqualityTests: XCTestCase {
    func testObjectMemberOrderIsIgnored() throws {
        XCTAssertEqual(try JSONParser.parse(#"{"a":1,"b":[2]}"#), try JSONParser.parse(#"{"b":[2],"a":1}"#))
        XCTAssertNotEqual(try JSONParser.parse(#"{"a":1}"#), try JSONParser.parse(#"{"a":1,"b":2}"#))
        XCTAssertNotEqual(try JSONParser.parse("[1,2]"), try JSONParser.parse("[2,1]"), "array order matters")
    }

    func testNumbersEqualByValueAcrossForms() throws {
        XCTAssertEqual(try JSONParser.parse("[1]"), try JSONParser.parse("[1.0]"))
        XCTAssertNotEqual(JSON.string("1"), JSON.int(1))
    }

    func testFragmentEqualsTheValueItEncodes() {
        let fragment = JSON.fragment(JSONFragment(validJSON: Array(#"{"a":[1,2]}"#.utf8)))
        XCTAssertEqual(fragment, ["a": [1, 2]])
        XCTAssertEqual(["a": [1, 2]] as JSON, fragment)
        XCTAssertNotEqual(fragment, ["a": [1]])
    }
}

final class DepthLimitTests: XCTestCase {
    private func nested(_ depth: Int) -> [UInt8] {
        Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)
    }

    func testTheDefaultLimitAllowsFiveHundredTwelveLevels() throws {
        XCTAssertNoThrow(try JSONParser.parse(nested(512)))
        XCTAssertThrowsError(try JSONParser.parse(nested(513))) { error in
            XCTAssertEqual((error as? JSONParseError)?.reason, .tooDeep(limit: 512))
        }
    }

    func testTenThousandLevelsAreRejectedWithoutExhaustingTheStack() {
        let open = Array(repeating: UInt8(ascii: "["), count: 10_000)
        XCTAssertThrowsError(try JSONParser.parse(open)) { error in
            XCTAssertEqual((error as? JSONParseError)?.reason, .tooDeep(limit: 512))
            XCTAssertEqual((error as? JSONParseError)?.offset, 512)
        }
        let objects = Array(repeating: #"{"a":"#, count: 10_000).joined()
        XCTAssertThrowsError(try JSONParser.parse(objects))
    }

    func testACustomLimit() {
        XCTAssertNoThrow(try JSONParser.parse(nested(3), maxDepth: 3))
        XCTAssertThrowsError(try JSONParser.parse(nested(4), maxDepth: 3))
    }

    func testErrorsSayWhere() {
        XCTAssertThrowsError(try JSONParser.parse("[1,]")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("byte 3"), text)
        }
    }
}
