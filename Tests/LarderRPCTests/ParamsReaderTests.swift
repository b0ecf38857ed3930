import XCTest
import LarderJSON
import LarderRPC

final class ParamsReaderTests: XCTestCase {
    private func expectError<T>(_ body: () throws(ResponseError) -> T, file: StaticString = #filePath, line: UInt = #line) -> ResponseError? {
        do {
            let value = try body()
            XCTFail("expected an error, got \(value)", file: file, line: line)
            return nil
        } catch {
            XCTAssertEqual(error.code, .invalidParams, file: file, line: line)
            return error
        }
    }

    func testRequireAndOptionalReadValues() throws {
        let p = ParamsReader(["name": "n", "count": 3, "ratio": 0.5, "on": true, "tags": ["a", "b"], "any": [1, nil]])
        XCTAssertEqual(try p.require("name", as: String.self), "n")
        XCTAssertEqual(try p.require("count", as: Int.self), 3)
        XCTAssertEqual(try p.require("ratio", as: Double.self), 0.5)
        XCTAssertEqual(try p.require("on", as: Bool.self), true)
        XCTAssertEqual(try p.require("tags", as: [String].self), ["a", "b"])
        XCTAssertEqual(try p.require("any", as: JSON.self), [1, nil])
        XCTAssertEqual(try p.optional("count", as: Int.self), 3)
        XCTAssertNil(try p.optional("absent", as: Int.self))
        XCTAssertTrue(p.contains("name"))
        XCTAssertFalse(p.contains("absent"))
    }

    func testNullCountsAsAbsent() throws {
        let p = ParamsReader(["gone": nil])
        XCTAssertNil(try p.optional("gone", as: String.self))
        XCTAssertFalse(p.contains("gone"))
        let e = expectError { () throws(ResponseError) in try p.require("gone", as: String.self) }
        XCTAssertTrue(e?.message.contains("params.gone") ?? false, e?.message ?? "")
    }

    func testMissingRequiredNamesThePath() {
        let p = ParamsReader(["other": 1])
        let e = expectError { () throws(ResponseError) in try p.require("key", as: String.self) }
        XCTAssertTrue(e?.message.contains("params.key") ?? false, e?.message ?? "")
        XCTAssertTrue(e?.message.contains("string") ?? false, e?.message ?? "")
    }

    func testNilParamsBehaveAsAnEmptyObject() {
        let p = ParamsReader(nil)
        XCTAssertEqual(p.path, "params")
        XCTAssertTrue(p.object.isEmpty)
        let e = expectError { () throws(ResponseError) in try p.require("key", as: Int.self) }
        XCTAssertTrue(e?.message.contains("params.key") ?? false, e?.message ?? "")
    }

    func testTypeMismatch() {
        let p = ParamsReader(["count": "ten"])
        let e = expectError { () throws(ResponseError) in try p.require("count", as: Int.self) }
        XCTAssertEqual(e?.message, "Invalid params: type mismatch at params.count: expected integer, got string")
        let o = expectError { () throws(ResponseError) in try p.optional("count", as: Bool.self) }
        XCTAssertEqual(o?.message, "Invalid params: type mismatch at params.count: expected boolean, got string")
    }

    func testNestedTypeMismatchNamesTheFullPath() {
        let p = ParamsReader(["disk": ["maxCount": "many"]])
        let e = expectError { () throws(ResponseError) in
            try p.require("disk", as: ParamsReader.self).require("maxCount", as: Int.self)
        }
        XCTAssertTrue(e?.message.contains("type mismatch at params.disk.maxCount: expected integer, got string") ?? false,
                      e?.message ?? "")
    }

    func testNestedMissingNamesTheFullPath() {
        let p = ParamsReader(["disk": [:]])
        let e = expectError { () throws(ResponseError) in
            try p.require("disk", as: ParamsReader.self).require("maxCount", as: Int.self)
        }
        XCTAssertTrue(e?.message.contains("params.disk.maxCount") ?? false, e?.message ?? "")
    }

    func testNestedObjectOfWrongType() {
        let p = ParamsReader(["disk": 5])
        let e = expectError { () throws(ResponseError) in try p.require("disk", as: ParamsReader.self) }
        XCTAssertTrue(e?.message.contains("type mismatch at params.disk: expected object, got integer") ?? false,
                      e?.message ?? "")
    }

    func testArrayElementMismatchNamesTheIndex() {
        let p = ParamsReader(["tags": ["a", 2]])
        let e = expectError { () throws(ResponseError) in try p.require("tags", as: [String].self) }
        XCTAssertTrue(e?.message.contains("params.tags[1]: expected string, got integer") ?? false, e?.message ?? "")
    }

    func testAnIntegerOutOfRangeIsRefusedNamingTheRange() throws {
        let cases: [(String, String)] = [
            ("99999999999999999999", "out of range at params.n: expected integer from -9223372036854775808 to 9223372036854775807, got 99999999999999999999"),
            ("-9223372036854775809", "out of range at params.n: expected integer from -9223372036854775808 to 9223372036854775807, got -9223372036854775809"),
            ("1e30", "out of range at params.n: expected integer from -9223372036854775808 to 9223372036854775807, got 1e30"),
            ("1e16", "out of range at params.n: expected integer from -9007199254740992 to 9007199254740992 when written with a fraction or an exponent, got 1e16"),
        ]
        for (literal, expected) in cases {
            let p = ParamsReader(try JSONParser.parse(Array(#"{"n":\#(literal)}"#.utf8)))
            let e = expectError { () throws(ResponseError) in try p.require("n", as: Int.self) }
            XCTAssertEqual(e?.message, "Invalid params: " + expected)
        }
        let p = ParamsReader(try JSONParser.parse(Array(#"{"n":9223372036854775807}"#.utf8)))
        XCTAssertEqual(try p.require("n", as: Int.self), Int.max)
    }

    func testIntegerRejectsFractions() {
        let p = ParamsReader(["n": 1.5])
        let e = expectError { () throws(ResponseError) in try p.require("n", as: Int.self) }
        XCTAssertTrue(e?.message.contains("expected integer, got number") ?? false, e?.message ?? "")
    }
}
