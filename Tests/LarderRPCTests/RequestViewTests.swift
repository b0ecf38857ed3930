import LarderJSON
import XCTest
@testable import LarderRPC

/// Which requests are read in place, and what is found in them.
final class RequestViewTests: XCTestCase {
    private func read(_ text: String, methods: [StaticString] = ["cache.get", "cache.set", "m"], _ check: (RequestView?) -> Void) {
        var bytes = Array(text.utf8)
        let reader = RequestReader.allocate(methods: methods)
        defer { reader.deallocate() }
        bytes.withUnsafeMutableBufferPointer { check(reader.read(UnsafeBufferPointer($0))) }
    }

    func testOnlyTheGivenMethodsAreRead() {
        let usual = #"{"jsonrpc":"2.0","id":1,"method":"cache.get","params":{"key":"k"}}"#
        let other = #"{"id":1,"jsonrpc":"2.0","method":"cache.get","params":{"key":"k"}}"#
        for text in [usual, other] {
            read(text) { XCTAssertNotNil($0, text) }
            read(text, methods: ["cache.set"]) { XCTAssertNil($0, text) }
            read(text, methods: []) { XCTAssertNil($0, text) }
        }
    }

    private func string(_ b: UnsafeBufferPointer<UInt8>) -> String { String(decoding: b, as: UTF8.self) }

    func testAPlainRequestIsReadInPlace() {
        read(#"{"jsonrpc":"2.0","id":42,"method":"cache.get","params":{"cache":"c","key":"k-1","value":{"a":[1]}}}"#) { view in
            guard let view else { return XCTFail("not read") }
            XCTAssertEqual(string(view.idText), "42")
            XCTAssertEqual(view.id, .number(JSONNumber(42)))
            XCTAssertTrue(view.methodIs("cache.get"))
            XCTAssertFalse(view.methodIs("cache.set"))
            XCTAssertEqual(view.params.count, 3)
            guard case .plainString(let key) = view.params["key"] else { return XCTFail("key") }
            XCTAssertEqual(string(key), "k-1")
            guard case .other(let value) = view.params["value"] else { return XCTFail("value") }
            XCTAssertEqual(string(value), #"{"a":[1]}"#)
            guard case .absent = view.params["group"] else { return XCTFail("group") }
            XCTAssertTrue(view.params["cache"].isPresent)
            XCTAssertFalse(view.params["group"].isPresent)
            guard case .plainString(let cache) = view.params["cache"] else { return XCTFail("cache") }
            XCTAssertEqual(string(cache), "c")
        }
    }

    func testWhitespaceBetweenTokensAndAnyMemberOrderAreFine() {
        read(#"  { "params" : { "key" : "k" } , "method" : "m" , "id" : "s-1" , "jsonrpc" : "2.0" }  "#) { view in
            guard let view else { return XCTFail("not read") }
            XCTAssertEqual(string(view.idText), #""s-1""#)
            XCTAssertEqual(view.id, .string("s-1"))
            XCTAssertTrue(view.methodIs("m"))
        }
    }

    func testAnythingElseIsLeftToTheParser() {
        let texts = [
            #"{"jsonrpc":"2.0","method":"m","params":{}}"#,
            #"{"jsonrpc":"2.0","id":null,"method":"m","params":{}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"m"}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"m","params":[]}"#,
            #"{"jsonrpc":"1.0","id":1,"method":"m","params":{}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"m\u0041","params":{}}"#,
            #"{"jsonrpc":"2.0","id":"a\"b","method":"m","params":{}}"#,
            #"{"jsonrpc":"2.0","id":1,"id":2,"method":"m","params":{}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"m","params":{},"x":1}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"m","params":{"k":1,"k":2}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"m","params":{"k":[1, 2]}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"m","params":{}} x"#,
            #"[{"jsonrpc":"2.0","id":1,"method":"m","params":{}}]"#,
            #"{"jsonrpc":"2.0","id":1,"method":"m","params":{}"#,
        ]
        for t in texts {
            read(t) { XCTAssertNil($0, t) }
        }
    }
}

extension RequestViewTests {
    /// The layout clients usually write is read by a shorter route; any other
    /// layout of the same request reads the same.
    func testTheUsualLayoutAndOthersReadTheSame() {
        let usual = #"{"jsonrpc":"2.0","id":"r-7","method":"cache.set","params":{"key":"k","value":[1,{"a":null}]}}"#
        let others = [
            #"{"jsonrpc":"2.0", "id":"r-7","method":"cache.set","params":{"key":"k","value":[1,{"a":null}]}}"#,
            #"{"id":"r-7","jsonrpc":"2.0","method":"cache.set","params":{"key":"k","value":[1,{"a":null}]}}"#,
            #"{"jsonrpc":"2.0","id":"r-7","method":"cache.set","params":{"key":"k","value":[1,{"a":null}]}} "#,
        ]
        func fields(_ text: String) -> [String]? {
            var result: [String]?
            read(text) { view in
                guard let view, case .plainString(let key) = view.params["key"], let value = view.params.text("value") else { return }
                result = [string(view.idText), string(view.method), string(key), string(value)]
            }
            return result
        }
        XCTAssertEqual(fields(usual), [#""r-7""#, "cache.set", "k", #"[1,{"a":null}]"#])
        for other in others { XCTAssertEqual(fields(other), fields(usual), other) }
        XCTAssertNil(fields(#"{"jsonrpc":"2.0","id":"r-7","method":"cache.set","params":{"key":"k","value":[1,{"a":null}]}}}"#))
    }
}
