import XCTest
@testable import LarderCore

final class SchemaVersionTests: XCTestCase {
    func testPartsCompareAsNumbersNotText() {
        XCTAssertLessThan(ver("1.0.2"), ver("1.0.10"))
        XCTAssertGreaterThan(ver("1.0.10"), ver("1.0.9"))
        XCTAssertLessThan(ver("2"), ver("10"))
        XCTAssertLessThan(ver("9.9.9"), ver("10"))
        XCTAssertLessThan(ver("1.9"), ver("1.10"))
        XCTAssertLessThan(ver("0.1"), ver("1"))
    }

    func testMissingPartsCountAsZero() {
        XCTAssertEqual(ver("1.0"), ver("1"))
        XCTAssertEqual(ver("1.0.0"), ver("1"))
        XCTAssertEqual(ver("1.0.0"), ver("1.0"))
        XCTAssertEqual(ver("0"), ver("0.0.0"))
        XCTAssertFalse(ver("1.0") < ver("1"))
        XCTAssertFalse(ver("1") < ver("1.0.0"))
        XCTAssertLessThan(ver("1"), ver("1.0.1"))
        XCTAssertLessThan(ver("1.1"), ver("1.1.1"))
        XCTAssertNotEqual(ver("1.0.1"), ver("1.1"))
    }

    func testEqualVersionsHashAlike() {
        let set: Set<SchemaVersion> = [ver("1"), ver("1.0"), ver("1.0.0"), ver("2")]
        XCTAssertEqual(set.count, 2)
        XCTAssertTrue(set.contains(ver("2.0")))
    }

    func testTextIsKeptAsWritten() {
        XCTAssertEqual(ver("1.0").text, "1.0")
        XCTAssertEqual(ver("1.0.0").description, "1.0.0")
        XCTAssertEqual(ver("2.10").text, "2.10")
    }

    func testSortingUsesNumericOrder() {
        let sorted = ["10", "1.0.10", "2", "1.0.2", "1.0.9", "1.1"].map(ver).sorted().map(\.text)
        XCTAssertEqual(sorted, ["1.0.2", "1.0.9", "1.0.10", "1.1", "2", "10"])
    }

    func testInvalidTextsAreRefused() {
        for text in ["", ".", "1.", ".1", "1..2", "x.1", "1.a", "a", "-1", "+1", "1.-2", " 1", "1 ", "1,2",
                     "v1", "1.0.0-beta", "1e3", "0x10", "١", "１", "99999999999999999999"] {
            XCTAssertNil(SchemaVersion(text), "\"\(text)\" should not be a version")
        }
    }

    func testLargestPartStillReads() {
        XCTAssertNotNil(SchemaVersion("18446744073709551615"))
        XCTAssertLessThan(ver("18446744073709551614"), ver("18446744073709551615"))
    }
}
