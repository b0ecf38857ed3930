import XCTest
import LarderJSON
@testable import LarderCore

/// `Conversion.convert`, the value conversions behind the `convert` step.
final class MigrationConversionTests: XCTestCase {
    private func convert(_ text: String, to: MigrationStep.Conversion, from: MigrationStep.Conversion? = nil) throws -> JSON {
        try Conversion.convert(json(text), to: to, from: from)
    }

    /// The literal text of a converted value, to tell `2` from `2.0`.
    private func literal(_ text: String, to: MigrationStep.Conversion, from: MigrationStep.Conversion? = nil) throws -> String {
        try convert(text, to: to, from: from).description
    }

    private func assertFails(_ text: String, to: MigrationStep.Conversion, from: MigrationStep.Conversion? = nil,
                             file: StaticString = #filePath, line: UInt = #line) {
        do {
            let result = try convert(text, to: to, from: from)
            XCTFail("\(text) → \(to.rawValue) should fail, gave \(result)", file: file, line: line)
        } catch let e as ObjectUpgrader.StepFailure {
            XCTAssertEqual(e.message, "cannot convert \(json(text)) to \(to.rawValue)", file: file, line: line)
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
        }
    }

    func testToString() throws {
        XCTAssertEqual(try convert("3", to: .string), "3")
        XCTAssertEqual(try convert("-2.5", to: .string), "-2.5")
        XCTAssertEqual(try convert("true", to: .string), "true")
        XCTAssertEqual(try convert("false", to: .string), "false")
        XCTAssertEqual(try convert(#""same""#, to: .string), "same")
        assertFails("null", to: .string)
        assertFails("[1]", to: .string)
        assertFails(#"{"a":1}"#, to: .string)
    }

    func testStringToNumber() throws {
        XCTAssertEqual(try literal(#""2.5""#, to: .number), "2.5")
        XCTAssertEqual(try literal(#""-7""#, to: .number), "-7")
        XCTAssertEqual(try literal(#""  42 ""#, to: .number), "42")
        XCTAssertEqual(try literal(#""1e3""#, to: .number), "1e3")
        assertFails(#""abc""#, to: .number)
        assertFails(#""""#, to: .number)
        assertFails(#""1,5""#, to: .number)
        assertFails(#""0x10""#, to: .number)
        assertFails(#""\"1\"""#, to: .number)
        assertFails(#""[1]""#, to: .number)
    }

    func testNumberRoundTripsThroughString() throws {
        for n in ["0", "17", "-3", "2.25", "1e-7"] {
            let s = try convert(n, to: .string)
            XCTAssertEqual(try Conversion.convert(s, to: .number, from: nil), json(n), n)
        }
    }

    func testToInteger() throws {
        XCTAssertEqual(try literal("5", to: .integer), "5")
        XCTAssertEqual(try literal("2.0", to: .integer), "2", "an integral value is written as an integer")
        XCTAssertEqual(try literal("1e3", to: .integer), "1000")
        XCTAssertEqual(try literal(#""12""#, to: .integer), "12")
        XCTAssertEqual(try literal(#""-4.0""#, to: .integer), "-4")
        XCTAssertEqual(try literal("true", to: .integer), "1")
        XCTAssertEqual(try literal("false", to: .integer), "0")
        // No rounding.
        assertFails("1.5", to: .integer)
        assertFails("-0.5", to: .integer)
        assertFails(#""1.5""#, to: .integer)
        assertFails("1e300", to: .integer)
        assertFails("null", to: .integer)
    }

    func testBoolAndNumber() throws {
        XCTAssertEqual(try convert("0", to: .bool), false)
        XCTAssertEqual(try convert("0.0", to: .bool), false)
        XCTAssertEqual(try convert("1", to: .bool), true)
        XCTAssertEqual(try convert("-2.5", to: .bool), true)
        XCTAssertEqual(try convert("true", to: .bool), true)
        XCTAssertEqual(try convert(#""true""#, to: .bool), true)
        XCTAssertEqual(try convert(#""false""#, to: .bool), false)
        XCTAssertEqual(try literal("true", to: .number), "1")
        XCTAssertEqual(try literal("false", to: .number), "0")
        assertFails(#""yes""#, to: .bool)
        assertFails(#""True""#, to: .bool)
        assertFails(#""1""#, to: .bool)
        assertFails("null", to: .bool)
        assertFails("[]", to: .bool)
    }

    func testDateToEpoch() throws {
        XCTAssertEqual(try literal(#""2017-02-06T16:03:40Z""#, to: .epochSeconds), "1486397020")
        XCTAssertEqual(try literal(#""2017-02-06T16:03:40Z""#, to: .epochMillis), "1486397020000")
        XCTAssertEqual(try literal(#""1970-01-01T00:00:01.500Z""#, to: .epochSeconds), "1.5")
        XCTAssertEqual(try literal(#""1970-01-01T00:00:01.500Z""#, to: .epochMillis), "1500")
        XCTAssertEqual(try literal(#""1970-01-01T02:00:00+02:00""#, to: .epochSeconds), "0")
        XCTAssertEqual(try literal(#""1969-12-31T23:59:59Z""#, to: .epochMillis), "-1000")
        // A number is taken to be an epoch already.
        XCTAssertEqual(try literal("1486397020", to: .epochSeconds), "1486397020")
        assertFails(#""yesterday""#, to: .epochSeconds)
        assertFails(#""2017-02-06""#, to: .epochMillis)
        assertFails("true", to: .epochSeconds)
        assertFails("null", to: .epochMillis)
    }

    func testEpochToDate() throws {
        XCTAssertEqual(try convert("1486397020", to: .date), "2017-02-06T16:03:40.000Z")
        XCTAssertEqual(try convert("1486397020", to: .date, from: .epochSeconds), "2017-02-06T16:03:40.000Z")
        XCTAssertEqual(try convert("1486397020123", to: .date, from: .epochMillis), "2017-02-06T16:03:40.123Z")
        XCTAssertEqual(try convert("1.5", to: .date), "1970-01-01T00:00:01.500Z")
        XCTAssertEqual(try convert("0", to: .date, from: .epochMillis), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(try convert("-1", to: .date), "1969-12-31T23:59:59.000Z")
        XCTAssertEqual(try convert("1999.9996", to: .date, from: .epochMillis), "1970-01-01T00:00:02.000Z", "milliseconds are rounded")
        assertFails("1e17", to: .date)
        assertFails("1e20", to: .date, from: .epochMillis)
        assertFails("1e400", to: .date)
        assertFails("true", to: .date)
        assertFails("[]", to: .date)
    }

    func testDateToDateNormalises() throws {
        XCTAssertEqual(try convert(#""2017-02-06T18:03:40+02:00""#, to: .date), "2017-02-06T16:03:40.000Z")
        XCTAssertEqual(try convert(#""2017-02-06t16:03:40.5z""#, to: .date), "2017-02-06T16:03:40.500Z")
        assertFails(#""2017-13-01T00:00:00Z""#, to: .date)
        assertFails(#""not a date""#, to: .date)
    }

    func testDateRoundTripsThroughEpochMillis() throws {
        let date: JSON = "2026-03-04T05:06:07.089Z"
        let ms = try Conversion.convert(date, to: .epochMillis, from: nil)
        XCTAssertEqual(try Conversion.convert(ms, to: .date, from: .epochMillis), date)
        let s = try Conversion.convert(date, to: .epochSeconds, from: nil)
        XCTAssertEqual(try Conversion.convert(s, to: .date, from: .epochSeconds), date)
    }
}
