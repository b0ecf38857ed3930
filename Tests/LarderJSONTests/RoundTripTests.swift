import XCTest
@testable import LarderJSON

final class RoundTripTests: XCTestCase {
    static let documents = [
        #"{"jsonrpc":"2.0","id":1,"method":"cache.set","params":{"key":"a","value":{"x":[1,2.50,"s"]}}}"#,
        #"[null,true,false,0,-0,1e-7,"",{},[],[[]],{"":{"":""}}]"#,
        #"{"名前":"ラーダー","emoji":"🙂🙃","escaped":"\"\\\n","mixed":[1,"two",{"three":3.0}]}"#,
        #"{"deep":[[[[[[[[[[{"x":"y"}]]]]]]]]]]}"#,
        #""just a string""#,
        "12345678901234567890",
    ]

    func testCompactDocumentsComeBackByteForByte() throws {
        for text in Self.documents {
            let value = try JSONParser.parse(text)
            XCTAssertEqual(String(decoding: value.encoded, as: UTF8.self), text)
            XCTAssertEqual(try JSONParser.parse(value.encoded), value)
        }
    }

    func testWhitespaceIsDroppedButValuesKept() throws {
        let pretty = "{\n  \"a\" : [ 1 , 2 ],\n  \"b\" : { \"c\" : null }\n}\n"
        let value = try JSONParser.parse(pretty)
        XCTAssertEqual(String(decoding: value.encoded, as: UTF8.self), #"{"a":[1,2],"b":{"c":null}}"#)
    }
}
