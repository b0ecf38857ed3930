import XCTest
import LarderJSON
@testable import LarderCore

/// The three date formats: input with fractions and offsets, UTC output, and bad dates refused by name.
final class EntityDateTests: StoreTestCase {
    private let moment: Int64 = 966_947_280_000  // 2000-08-22T12:28:00Z

    func testISO8601() {
        let f = DateFormat.iso8601
        XCTAssertEqual(f.milliseconds(from: "2000-08-22T12:28:00Z"), moment)
        XCTAssertEqual(f.milliseconds(from: "2000-08-22T14:28:00+02:00"), moment, "offsets are accepted")
        XCTAssertEqual(f.milliseconds(from: "2000-08-22T12:28:00.250Z"), moment + 250, "fractional seconds are accepted")
        XCTAssertEqual(f.json(milliseconds: moment), "2000-08-22T12:28:00Z")
        XCTAssertEqual(f.json(milliseconds: moment + 250), "2000-08-22T12:28:00.250Z")
        XCTAssertNil(f.milliseconds(from: "20000822T122800Z"))
        XCTAssertNil(f.milliseconds(from: 966_947_280))
    }

    func testISO8601Basic() {
        let f = DateFormat.iso8601Basic
        XCTAssertEqual(f.milliseconds(from: "20000822T122800Z"), moment)
        XCTAssertEqual(f.milliseconds(from: "20000822T142800+0200"), moment)
        XCTAssertEqual(f.milliseconds(from: "20000822T142800+02:00"), moment)
        XCTAssertEqual(f.milliseconds(from: "20000822T102800-02"), moment)
        XCTAssertEqual(f.milliseconds(from: "20000822T122800.5Z"), moment + 500)
        XCTAssertEqual(f.json(milliseconds: moment), "20000822T122800Z")
        XCTAssertEqual(f.json(milliseconds: moment + 500), "20000822T122800.500Z")
        for bad in ["2000-08-22T12:28:00Z", "20000822T122800", "20001322T122800Z", "20000230T122800Z", "20000822T122800+2"] {
            XCTAssertNil(f.milliseconds(from: .string(bad)), bad)
        }
    }

    func testEpochSeconds() {
        let f = DateFormat.epochSeconds
        XCTAssertEqual(f.milliseconds(from: 966_947_280), moment)
        XCTAssertEqual(f.milliseconds(from: 966_947_280.0), moment)
        XCTAssertEqual(f.milliseconds(from: 966_947_280.25), moment + 250)
        XCTAssertEqual(f.milliseconds(from: -1), -1000, "dates before 1970 are negative")
        XCTAssertEqual(f.json(milliseconds: moment), 966_947_280)
        XCTAssertEqual(f.json(milliseconds: moment + 250), 966_947_280.25)
        XCTAssertNil(f.milliseconds(from: "966947280"), "a string is not a number of seconds")
        XCTAssertNil(f.milliseconds(from: 1e300), "beyond year 9999")
    }

    func testEachFormatRoundTripsThroughTheStore() throws {
        for (format, input, output) in [
            ("iso8601", #""1981-11-13T09:00:00.5+09:00""#, #""1981-11-13T00:00:00.500Z""#),
            ("iso8601Basic", #""19811113T090000+0900""#, #""19811113T000000Z""#),
            ("epochSeconds", "374457600", "374457600"),
        ] {
            let store = try makeStore(inMemory: true)
            try store.define(bandsModel(dateFormat: format))
            try store.upsert("Band", japan)
            try store.upsert("Album", #"{"name": "Tin Drum", "band": "Japan", "released": \#(input), "label": "Virgin"}"#)
            XCTAssertEqual(try store.record("Album", "Tin Drum")?["released"], json(output), format)
        }
    }

    func testAnUnparseableDateNamesTheRecordAndTheField() throws {
        let store = try makeStore()
        try store.define(bandsModel())
        try store.stage("Band", japan)
        assertInvalid("records[1].released", #"Album "Quiet Life": expected a date in iso8601 format (such as 2000-08-22T12:28:00Z), got "1979-13-01T00:00:00Z""#) {
            try store.stage("Album", tinDrum, #"{"name": "Quiet Life", "band": "Japan", "released": "1979-13-01T00:00:00Z", "label": "Hansa"}"#)
        }
        assertInvalid("records[0].released", "got 1979") {
            try store.stage("Album", #"{"name": "Quiet Life", "released": 1979, "label": "Hansa"}"#)
        }
        // Never the epoch, never a guess: the failed call staged nothing, the earlier one stays.
        XCTAssertEqual(store.stagedEntities.count, 1)
    }

    func testBadDatesInEveryFormat() throws {
        for (format, bad) in [("iso8601", #""yesterday""#), ("iso8601Basic", #""1981-11-13T00:00:00Z""#), ("epochSeconds", #""374457600""#)] {
            let store = try makeStore(inMemory: true)
            try store.define(bandsModel(dateFormat: format))
            assertInvalid("records[0].released", "expected a date in \(format) format") {
                try store.upsert("Album", #"{"name": "Tin Drum", "released": \#(bad), "label": "Virgin"}"#)
            }
        }
    }

    func testDatesCompareInQueriesWhateverTheOffset() throws {
        let store = try makeStore()
        try store.define(bandsModel())
        try store.upsert("Album", tinDrum, polaroids, onMissing: .null)
        XCTAssertEqual(try store.ids("Album", where: #"{"released": {"gt": "1981-11-13T08:59:59+09:00"}}"#), ["Tin Drum"])
        XCTAssertEqual(try store.ids("Album", where: #"{"released": "1981-11-13T09:00:00+09:00"}"#), ["Tin Drum"])
        assertInvalid("where.released.lt", "expected a date in iso8601 format") {
            _ = try store.ids("Album", where: #"{"released": {"lt": "soon"}}"#)
        }
    }
}
