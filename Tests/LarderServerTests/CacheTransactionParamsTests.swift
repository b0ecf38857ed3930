import LarderJSON
import XCTest
@testable import LarderServer

/// What `cache.transaction` refuses before anything is read or written
/// (SPEC 9.55): too many parts, and each malformed element by its place.
final class CacheTransactionParamsTests: XCTestCase {
    private let directory = StoreDirectory()

    func testMoreThanAThousandPartsAreRefusedAndNothingIsWritten() throws {
        let sets = (0..<600).map { _ in #"{"op":"set","key":"k","value":1}"# }.joined(separator: ",")
        func compares(_ n: Int) -> String { (0..<n).map { _ in #"{"key":"k","absent":true}"# }.joined(separator: ",") }
        try directory.serve { session in
            let answers = session.send([
                request(1, "cache.transaction", #"{"compare":[\#(compares(401))],"then":[\#(sets)]}"#),
                request(2, "cache.transaction", #"{"compare":[\#(compares(400))],"then":[\#(sets)]}"#),
            ])
            XCTAssertEqual(answers[0]["error"]?["code"], .int(-32602), "\(answers[0])")
            XCTAssertTrue(answers[0]["error"]?["message"]?.stringValue?.contains("1001 comparisons and operations") == true, "\(answers[0])")
            XCTAssertEqual(answers[1]["result"]?["succeeded"], true, "a thousand is allowed: \(answers[1])")
        }
    }

    func testEachMalformedElementIsNamedByItsPlace() throws {
        let cases: [(params: String, message: String)] = [
            (#"{"then":[{"op":"get","key":"a"},{"op":"remvoe","key":"a"}]}"#, #"params.then[1].op: unknown operation "remvoe"; did you mean "remove"?"#),
            (#"{"else":[{"op":"incr","key":"a"}]}"#, #"params.else[0].op: unknown operation "incr"; did you mean "increment"?"#),
            (#"{"compare":[{"key":"a","present":true},{"key":"b"}]}"#, "params.compare[1] needs one test: revision, absent, present or value"),
            (#"{"compare":[{"key":"a","value":null,"present":true}]}"#, "params.compare[0] has 2 tests (present, value); give one"),
            (#"{"compare":[{"key":"a","present":false}]}"#, "params.compare[0].present must be true"),
            (#"{"then":[{"op":"set","key":"a"}]}"#, "params.then[0] needs value (any JSON) or data (base64 bytes)"),
            (#"{"then":[{"op":"increment","key":"a","value":1}]}"#, "params.then[0].value: an increment operation takes no value"),
            (#"{"then":[{"op":"set","key":"","value":1}]}"#, "params.then[0].key must not be empty"),
            (#"{"then":[{"op":"increment","key":"a","by":-9223372036854775808}]}"#, "params.then[0].by must be an integer within"),
        ]
        try directory.serve { session in
            let answers = session.send(cases.enumerated().map { request($0.offset + 1, "cache.transaction", $0.element.params) })
            for (answer, c) in zip(answers, cases) {
                XCTAssertEqual(answer["error"]?["code"], .int(-32602), "\(answer)")
                XCTAssertTrue(answer["error"]?["message"]?.stringValue?.contains(c.message) == true, "\(answer) should say \(c.message)")
            }
        }
    }
}
