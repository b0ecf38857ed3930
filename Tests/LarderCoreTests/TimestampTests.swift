import XCTest
@testable import LarderCore
import LarderJSON

final class TimestampTests: XCTestCase {
    func testFormatEpoch() {
        XCTAssertEqual(Timestamp.format(milliseconds: 0), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp.format(milliseconds: 1), "1970-01-01T00:00:00.001Z")
        XCTAssertEqual(Timestamp.format(milliseconds: 86_400_000), "1970-01-02T00:00:00.000Z")
    }

    func testFormatLeapDays() {
        XCTAssertEqual(Timestamp.format(milliseconds: 1_709_210_096_789), "2024-02-29T12:34:56.789Z")
        XCTAssertEqual(Timestamp.format(milliseconds: 951_782_400_000), "2000-02-29T00:00:00.000Z")
        XCTAssertEqual(Timestamp.format(milliseconds: 951_782_400_000 + 86_400_000), "2000-03-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp.format(milliseconds: 1_767_225_600_000 - 1), "2025-12-31T23:59:59.999Z")
    }

    func testFormatNegativeTimes() {
        XCTAssertEqual(Timestamp.format(milliseconds: -1), "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(Timestamp.format(milliseconds: -1000), "1969-12-31T23:59:59.000Z")
        XCTAssertEqual(Timestamp.format(milliseconds: -1001), "1969-12-31T23:59:58.999Z")
        XCTAssertEqual(Timestamp.format(milliseconds: -86_400_000), "1969-12-31T00:00:00.000Z")
        XCTAssertEqual(Timestamp.format(milliseconds: -86_400_001), "1969-12-30T23:59:59.999Z")
        XCTAssertEqual(Timestamp.format(milliseconds: -14_182_940_000), "1969-07-20T20:17:40.000Z")
        XCTAssertEqual(Timestamp.format(milliseconds: -2_203_891_200_000), "1900-03-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp.format(milliseconds: -62_135_596_800_000), "0001-01-01T00:00:00.000Z")
    }

    func testFormatForms() {
        let ms: Int64 = 1_709_210_096_789
        XCTAssertEqual(Timestamp.format(milliseconds: ms, basic: true), "20240229T123456.789Z")
        XCTAssertEqual(Timestamp.format(milliseconds: ms - 789, basic: true, alwaysFraction: false), "20240229T123456Z")
        XCTAssertEqual(Timestamp.format(milliseconds: ms - 789, alwaysFraction: false), "2024-02-29T12:34:56Z")
        XCTAssertEqual(Timestamp.format(milliseconds: ms - 780, alwaysFraction: false), "2024-02-29T12:34:56.009Z")
        var w = JSONWriter()
        Timestamp.append(milliseconds: ms, to: &w)
        Timestamp.append(milliseconds: 253_402_300_800_000, to: &w)
        XCTAssertEqual(w.withBytes { String(decoding: $0, as: UTF8.self) }, "2024-02-29T12:34:56.789Z10000-1-1T0:0:0.0Z")
    }

    func testFormatFarFuture() {
        XCTAssertEqual(Timestamp.format(milliseconds: 253_402_300_799_999), "9999-12-31T23:59:59.999Z")
    }

    func testParseUTC() {
        XCTAssertEqual(Timestamp.parse("1970-01-01T00:00:00Z"), 0)
        XCTAssertEqual(Timestamp.parse("1970-01-01T00:00:00.000Z"), 0)
        XCTAssertEqual(Timestamp.parse("2024-02-29T12:34:56.789Z"), 1_709_210_096_789)
        XCTAssertEqual(Timestamp.parse("2026-01-01T00:00:00Z"), 1_767_225_600_000)
        XCTAssertEqual(Timestamp.parse("1969-12-31T23:59:59.999Z"), -1)
        XCTAssertEqual(Timestamp.parse("1900-03-01T00:00:00Z"), -2_203_891_200_000)
        XCTAssertEqual(Timestamp.parse("2000-02-29T00:00:00Z"), 951_782_400_000)
    }

    func testParseLowercaseAndSpaceSeparator() {
        XCTAssertEqual(Timestamp.parse("2026-01-01t00:00:00z"), 1_767_225_600_000)
        XCTAssertEqual(Timestamp.parse("2026-01-01 00:00:00Z"), 1_767_225_600_000)
    }

    func testParseOffsets() {
        let base: Int64 = 1_767_225_600_000 // 2026-01-01T00:00:00Z
        XCTAssertEqual(Timestamp.parse("2026-01-01T02:00:00+02:00"), base)
        XCTAssertEqual(Timestamp.parse("2025-12-31T18:30:00-05:30"), base)
        XCTAssertEqual(Timestamp.parse("2026-01-01T00:00:00+00:00"), base)
        XCTAssertEqual(Timestamp.parse("2026-01-01T00:00:00-00:00"), base)
        XCTAssertEqual(Timestamp.parse("2026-01-01T23:59:00+23:59"), base)
        XCTAssertEqual(Timestamp.parse("2026-01-01T00:00:00.250+01:00"), base - 3_600_000 + 250)
    }

    func testParseFractions() {
        XCTAssertEqual(Timestamp.parse("1970-01-01T00:00:00.5Z"), 500)
        XCTAssertEqual(Timestamp.parse("1970-01-01T00:00:00.05Z"), 50)
        XCTAssertEqual(Timestamp.parse("1970-01-01T00:00:00.123Z"), 123)
        // Beyond milliseconds, digits are accepted and truncated.
        XCTAssertEqual(Timestamp.parse("1970-01-01T00:00:00.123456789Z"), 123)
        XCTAssertEqual(Timestamp.parse("1970-01-01T00:00:00.9999Z"), 999)
        XCTAssertEqual(Timestamp.parse("1970-01-01T00:00:01.000000Z"), 1000)
    }

    func testParseLeapSecondClampsToTheSameMinute() {
        XCTAssertEqual(Timestamp.parse("2016-12-31T23:59:60Z"), Timestamp.parse("2016-12-31T23:59:59Z"))
    }

    func testFormatThenParseRoundTrips() {
        for ms: Int64 in [0, 1, -1, 999, -999, 1_709_210_096_789, -2_203_891_200_001, 253_402_300_799_999, -62_135_596_800_000, 4_102_444_800_000] {
            XCTAssertEqual(Timestamp.parse(Timestamp.format(milliseconds: ms)), ms, "\(ms)")
        }
    }

    func testRejectsGarbage() {
        for text in ["", "garbage", "2026", "2026-01-01", "2026-01-01T00:00Z", "2026-01-01T00:00:00",
                     "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00ZZ", "2026-01-01T00:00:00Z ", " 2026-01-01T00:00:00Z",
                     "2026-1-01T00:00:00Z", "2026/01/01T00:00:00Z", "2026-01-01X00:00:00Z", "2026-01-01T00:00:00+0100",
                     "2026-01-01T00:00:00+01", "2026-01-01T00:00:00+01:00:00", "2026-01-01T00:00:00UTC",
                     "２０２６-01-01T00:00:00Z", "2026-01-01T00:00:00.1a2Z", "-026-01-01T00:00:00Z", "+2026-01-01T00:00:00Z"] {
            XCTAssertNil(Timestamp.parse(text), text.debugDescription)
        }
    }

    func testRejectsInvalidDates() {
        for text in ["2026-02-30T00:00:00Z", "2026-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2100-02-29T00:00:00Z",
                     "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z",
                     "2026-01-32T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z", "2026-01-01T00:00:61Z",
                     "2026-01-01T00:00:00+24:00", "2026-01-01T00:00:00+01:60"] {
            XCTAssertNil(Timestamp.parse(text), text)
        }
        XCTAssertNotNil(Timestamp.parse("2000-02-29T00:00:00Z"))
        XCTAssertNotNil(Timestamp.parse("2024-02-29T00:00:00Z"))
        XCTAssertNotNil(Timestamp.parse("2026-04-30T00:00:00Z"))
        XCTAssertNotNil(Timestamp.parse("2026-12-31T23:59:59Z"))
    }
}
