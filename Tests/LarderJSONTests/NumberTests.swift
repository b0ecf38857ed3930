import XCTest
@testable import LarderJSON

final class NumberTests: XCTestCase {
    private func number(_ text: String) throws -> JSONNumber {
        try XCTUnwrap(try JSONParser.parse(text).numberValue, text)
    }

    func testSixtyFourBitIntegersAreExact() throws {
        XCTAssertEqual(try number("9223372036854775807").int64, Int64.max)
        XCTAssertEqual(try number("-9223372036854775808").int64, Int64.min)
        XCTAssertEqual(try number("9007199254740993").int64, 9_007_199_254_740_993, "beyond a double's exact range")
    }

    func testLiteralsAreKeptAsWritten() throws {
        for literal in ["18446744073709551615", "1.0", "1e3", "-0", "1E+2", "0.10", "1e400", "-1.5e-7"] {
            XCTAssertEqual(try number(literal).literal, literal)
            XCTAssertEqual(try JSONParser.parse(literal).description, literal, "written back unchanged")
        }
    }

    func testIntegerViewsOfNonIntegerLiterals() throws {
        XCTAssertEqual(try number("10.0").int64, 10)
        XCTAssertEqual(try number("1e3").int64, 1000)
        XCTAssertNil(try number("1.5").int64)
        XCTAssertNil(try number("18446744073709551615").int64, "does not fit in Int64")
        XCTAssertFalse(try number("1.0").isInteger)
        XCTAssertTrue(try number("-12").isInteger)
    }

    func testDoubles() throws {
        XCTAssertEqual(try number("0.1").double, 0.1)
        XCTAssertEqual(try number("-1.5e-7").double, -1.5e-7)
        XCTAssertEqual(try number("1e400").double, .infinity)
    }

    func testDoublesAreWrittenInTheShortestForm() {
        XCTAssertEqual(JSONNumber(0.1).literal, "0.1")
        XCTAssertEqual(JSONNumber(1.0).literal, "1")
        XCTAssertEqual(JSONNumber(-2.5).literal, "-2.5")
        XCTAssertEqual(JSONNumber(1e20).double, 1e20)
        for value in [0.1, 1.0 / 3.0, 123456.789, 5e-324, 1.7976931348623157e308] {
            XCTAssertEqual(JSONNumber(value).double, value, "round trip of \(value)")
            XCTAssertNoThrow(try JSONParser.parse(JSONNumber(value).literal), "valid JSON: \(JSONNumber(value).literal)")
        }
    }

    func testNumbersCompareByValue() throws {
        XCTAssertEqual(try number("1"), try number("1.0"))
        XCTAssertEqual(try number("100"), try number("1e2"))
        XCTAssertNotEqual(try number("1"), try number("2"))
        XCTAssertNotEqual(try number("9007199254740993"), try number("9007199254740992"))
    }
}
