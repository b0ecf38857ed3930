import XCTest
import LarderJSON

/// entity.apply answers exactly once, whether it succeeds or fails (JSONCache
/// could call its completion several times).
final class EntityApplyResponseTests: XCTestCase {
    private let model = #"{"jsonrpc":"2.0","id":1,"method":"entity.define","params":{"model":"M","entities":[{"name":"Band","attributes":{"id":"string"}},{"name":"Album","attributes":{"id":"string"},"relationships":[{"name":"band","destination":"Band"}]}]}}"#

    func testOneResponsePerApply() throws {
        let larder = try startLarder()
        larder.send(model)
        larder.send(#"{"jsonrpc":"2.0","id":2,"method":"entity.stage","params":{"entity":"Band","records":[{"id":"b"}]}}"#)
        larder.send(#"{"jsonrpc":"2.0","id":3,"method":"entity.stage","params":{"entity":"Album","records":[{"id":"a1","band":"b"},{"id":"a2","band":"x"}]}}"#)
        larder.send(#"{"jsonrpc":"2.0","id":4,"method":"entity.apply"}"#)
        larder.send(#"{"jsonrpc":"2.0","id":5,"method":"entity.apply","params":{"onMissing":"null"}}"#)
        larder.send(#"{"jsonrpc":"2.0","id":6,"method":"entity.apply"}"#)
        larder.closeStdin()
        let text = String(decoding: try XCTUnwrap(larder.readToEnd()), as: UTF8.self)
        let messages = try text.split(separator: "\n").map { try JSONParser.parse(String($0)) }
        XCTAssertEqual(messages.map { $0["id"] }, [1, 2, 3, 4, 5, 6], text)
        XCTAssertEqual(messages[3].errorCode, -31042, "the first apply fails on the missing band x")
        XCTAssertEqual(messages[4]["result"], ["inserted": 3, "updated": 0, "linked": 1, "unresolved": 1])
        XCTAssertEqual(messages[5]["result"], ["inserted": 0, "updated": 0, "linked": 0, "unresolved": 0])
        XCTAssertEqual(larder.waitForExit(), 0)
    }
}
