import XCTest
import LarderJSON
import LarderRPC

final class MessageDecodeTests: XCTestCase {
    private func decode(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Result<Message, InvalidMessage>? {
        do {
            return Message.decode(try JSONParser.parse(text))
        } catch {
            XCTFail("test input is not JSON: \(error)", file: file, line: line)
            return nil
        }
    }

    private func invalid(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> InvalidMessage? {
        switch decode(text, file: file, line: line) {
        case .failure(let e)?: return e
        case .success(let m)?: XCTFail("decoded as \(m)", file: file, line: line); return nil
        case nil: return nil
        }
    }

    func testRequest() {
        guard case .success(.request(let id, let method, let params))? =
            decode(#"{"jsonrpc":"2.0","id":7,"method":"cache.get","params":{"key":"k"}}"#) else {
            return XCTFail("not a request")
        }
        XCTAssertEqual(id, .number(JSONNumber(7)))
        XCTAssertEqual(method, "cache.get")
        XCTAssertEqual(params, ["key": "k"])
    }

    func testNotification() {
        guard case .success(.notification(let method, let params))? =
            decode(#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#) else {
            return XCTFail("not a notification")
        }
        XCTAssertEqual(method, "initialized")
        XCTAssertEqual(params, .object(JSONObject()))
    }

    func testResponseWithResult() {
        guard case .success(.response(let id, let result))? =
            decode(#"{"jsonrpc":"2.0","id":"larder-1","result":{"answer":42}}"#) else {
            return XCTFail("not a response")
        }
        XCTAssertEqual(id, .string("larder-1"))
        XCTAssertEqual(try result.get(), ["answer": 42])
    }

    func testResponseWithNullResult() {
        guard case .success(.response(_, let result))? = decode(#"{"jsonrpc":"2.0","id":3,"result":null}"#) else {
            return XCTFail("not a response")
        }
        XCTAssertEqual(try result.get(), .null)
    }

    func testResponseWithError() {
        guard case .success(.response(let id, let result))? =
            decode(#"{"jsonrpc":"2.0","id":"larder-2","error":{"code":-32601,"message":"nope","data":[1]}}"#) else {
            return XCTFail("not a response")
        }
        XCTAssertEqual(id, .string("larder-2"))
        guard case .failure(let error) = result else { return XCTFail("expected an error") }
        XCTAssertEqual(error.code, .methodNotFound)
        XCTAssertEqual(error.message, "nope")
        XCTAssertEqual(error.data, [1])
    }

    func testIdNumberStringAndNull() {
        guard case .success(.request(let n, _, _))? = decode(#"{"jsonrpc":"2.0","id":12345678901234567890,"method":"m"}"#) else {
            return XCTFail()
        }
        // Numbers keep their literal, even past 64 bits.
        guard case .number(let literal) = n else { return XCTFail("\(n)") }
        XCTAssertEqual(literal.literal, "12345678901234567890")

        guard case .success(.request(let s, _, _))? = decode(#"{"jsonrpc":"2.0","id":"abc","method":"m"}"#) else {
            return XCTFail()
        }
        XCTAssertEqual(s, .string("abc"))

        guard case .success(.request(let null, _, _))? = decode(#"{"jsonrpc":"2.0","id":null,"method":"m"}"#) else {
            return XCTFail("id null is a request, not a notification")
        }
        XCTAssertEqual(null, .null)
    }

    func testObjectIdIsInvalidWithIdNull() {
        let e = invalid(#"{"jsonrpc":"2.0","id":{"x":1},"method":"m"}"#)
        XCTAssertEqual(e?.error.code, .invalidRequest)
        XCTAssertEqual(e?.id, .null)
        XCTAssertEqual(e?.isNotification, false)
    }

    func testArrayAndBoolIdsAreInvalid() {
        for text in [#"{"jsonrpc":"2.0","id":[1],"method":"m"}"#, #"{"jsonrpc":"2.0","id":true,"method":"m"}"#] {
            let e = invalid(text)
            XCTAssertEqual(e?.error.code, .invalidRequest, text)
            XCTAssertEqual(e?.id, .null, text)
        }
    }

    func testMissingJsonrpc() {
        let e = invalid(#"{"id":4,"method":"m"}"#)
        XCTAssertEqual(e?.error.code, .invalidRequest)
        XCTAssertEqual(e?.id, .number(JSONNumber(4)))
        XCTAssertTrue(e?.error.message.contains("jsonrpc") ?? false)
    }

    func testWrongJsonrpc() {
        for version in [#""1.0""#, #"2.0"#, #""2""#, "null"] {
            let e = invalid(#"{"jsonrpc":\#(version),"id":"q","method":"m"}"#)
            XCTAssertEqual(e?.error.code, .invalidRequest, version)
            XCTAssertEqual(e?.id, .string("q"), version)
        }
    }

    func testNonStringMethod() {
        let e = invalid(#"{"jsonrpc":"2.0","id":5,"method":42}"#)
        XCTAssertEqual(e?.error.code, .invalidRequest)
        XCTAssertEqual(e?.id, .number(JSONNumber(5)))
        XCTAssertTrue(e?.error.message.contains("method") ?? false)
    }

    func testParamsArrayIsInvalidParamsMentioningObject() {
        let e = invalid(#"{"jsonrpc":"2.0","id":6,"method":"m","params":[1,2]}"#)
        XCTAssertEqual(e?.error.code, .invalidParams)
        XCTAssertEqual(e?.error.code.rawValue, -32602)
        XCTAssertEqual(e?.id, .number(JSONNumber(6)))
        XCTAssertTrue(e?.error.message.contains("object") ?? false, e?.error.message ?? "")
        XCTAssertEqual(e?.isNotification, false)
    }

    func testParamsArrayOnANotificationIsNotAnswered() {
        let e = invalid(#"{"jsonrpc":"2.0","method":"m","params":[1]}"#)
        XCTAssertEqual(e?.isNotification, true)
    }

    func testAbsentParamsGiveNil() {
        guard case .success(.request(_, _, let params))? = decode(#"{"jsonrpc":"2.0","id":1,"method":"m"}"#) else {
            return XCTFail()
        }
        XCTAssertNil(params)
        guard case .success(.notification(_, let p))? = decode(#"{"jsonrpc":"2.0","method":"n"}"#) else {
            return XCTFail()
        }
        XCTAssertNil(p)
    }

    func testNullParamsAreAccepted() {
        // (Whether they come out as nil or as JSON null, `ParamsReader` reads both as an empty object.)
        guard case .success(.request(_, _, let params))? = decode(#"{"jsonrpc":"2.0","id":1,"method":"m","params":null}"#) else {
            return XCTFail()
        }
        XCTAssertTrue(ParamsReader(params).object.isEmpty)
        guard case .success(.notification(_, let p))? = decode(#"{"jsonrpc":"2.0","method":"n","params":null}"#) else {
            return XCTFail()
        }
        XCTAssertTrue(ParamsReader(p).object.isEmpty)
    }

    func testParamsScalarIsInvalidRequest() {
        for value in ["3", #""text""#, "true"] {
            let e = invalid(#"{"jsonrpc":"2.0","id":8,"method":"m","params":\#(value)}"#)
            XCTAssertEqual(e?.error.code, .invalidRequest, value)
            XCTAssertEqual(e?.error.code.rawValue, -32600, value)
            XCTAssertEqual(e?.id, .number(JSONNumber(8)), value)
        }
    }

    func testNonObjectMessage() {
        for text in ["1", #""x""#, "null", "[1]"] {
            let e = invalid(text)
            XCTAssertEqual(e?.error.code, .invalidRequest, text)
            XCTAssertEqual(e?.id, .null, text)
        }
    }

    func testNeitherMethodNorResult() {
        let e = invalid(#"{"jsonrpc":"2.0","id":9}"#)
        XCTAssertEqual(e?.error.code, .invalidRequest)
        XCTAssertEqual(e?.id, .number(JSONNumber(9)))
    }

    func testErrorResponseWithMalformedErrorStillAnswersTheRequest() {
        // The waiting server-side request must hear back, or it would wait forever.
        guard case .success(.response(let id, .failure(let error))) = Message.decode(try! JSONParser.parse(#"{"jsonrpc":"2.0","id":9,"error":{"message":"no code"}}"#)) else {
            return XCTFail("not decoded as an error response")
        }
        XCTAssertEqual(id, .number(JSONNumber(9)))
        XCTAssertEqual(error.code, .internalError)
        XCTAssertTrue(error.message.contains("malformed error object"), error.message)
    }
}
