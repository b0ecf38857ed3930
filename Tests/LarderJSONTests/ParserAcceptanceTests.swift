import XCTest
@testable import LarderJSON

/// `y_` cases: texts that must parse, and the values they must parse to.
final class ParserAcceptanceTests: XCTestCase {
    func testStructuresAreAccepted() {
        assertAllAccepted([
            JSONCase("y_object_empty", "{}"),
            JSONCase("y_object_empty_with_whitespace", "{ \t\r\n}"),
            JSONCase("y_object_simple", #"{"a":1}"#),
            JSONCase("y_object_basic", #"{"asd":"sdf"}"#),
            JSONCase("y_object_two_members", #"{"a":1,"b":2}"#),
            JSONCase("y_object_whitespace_everywhere", " { \"a\" : 1 , \"b\" :\n[ 2 , 3 ] } "),
            JSONCase("y_object_duplicated_key", #"{"a":"b","a":"c"}"#),
            JSONCase("y_object_duplicated_key_and_value", #"{"a":"b","a":"b"}"#),
            JSONCase("y_object_empty_key", #"{"":0}"#),
            JSONCase("y_object_escaped_null_in_key", #"{"foo\u0000bar": 42}"#),
            JSONCase("y_object_extreme_numbers", #"{ "min": -1.0e+28, "max": 1.0e+28 }"#),
            JSONCase("y_object_long_strings", #"{"x":[{"id": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}], "id": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"#),
            JSONCase("y_object_nested", #"{"a":{"b":{"c":{}}}}"#),
            JSONCase("y_object_string_unicode", #"{"title":"\u041f\u043e\u043b\u0442\u043e\u0440\u0430 \u0417\u0435\u043c\u043b\u0435\u043a\u043e\u043f\u0430" }"#),
            JSONCase("y_array_empty", "[]"),
            JSONCase("y_array_empty_with_whitespace", "[ \n ]"),
            JSONCase("y_array_empty_string", #"[""]"#),
            JSONCase("y_array_arraysWithSpaces", "[[]   ]"),
            JSONCase("y_array_ending_with_newline", "[\"a\"]\n"),
            JSONCase("y_array_false", "[false]"),
            JSONCase("y_array_heterogeneous", #"[null, 1, "1", {}]"#),
            JSONCase("y_array_null", "[null]"),
            JSONCase("y_array_with_1_and_newline", "[1\n]"),
            JSONCase("y_array_with_leading_space", " [1]"),
            JSONCase("y_array_with_several_null", "[1,null,null,null,2]"),
            JSONCase("y_array_with_trailing_space", "[2] "),
            JSONCase("y_array_nested_empty", "[[[[]]]]"),
            JSONCase("y_structure_lonely_false", "false"),
            JSONCase("y_structure_lonely_true", "true"),
            JSONCase("y_structure_lonely_null", "null"),
            JSONCase("y_structure_lonely_int", "42"),
            JSONCase("y_structure_lonely_negative_real", "-0.1"),
            JSONCase("y_structure_lonely_string", #""asd""#),
            JSONCase("y_structure_string_empty", #""""#),
            JSONCase("y_structure_true_in_array", "[true]"),
            JSONCase("y_structure_whitespace_array", " [] "),
            JSONCase("y_structure_trailing_newline", "[\"a\"]\n"),
            JSONCase("y_structure_all_whitespace_kinds", " \t\r\n[ \t\r\n1 \t\r\n] \t\r\n"),
        ])
    }

    func testParsedValuesHaveTheExpectedShape() throws {
        let values = assertAllAccepted([
            JSONCase("y_object_mixed", #"{"n":null,"t":true,"f":false,"i":-12,"s":"x","a":[1,[2]],"o":{"k":"v"}}"#),
            JSONCase("y_array_mixed", #"[null,true,false,0,"",[],{}]"#),
        ])
        let object = try XCTUnwrap(values["y_object_mixed"]?.objectValue)
        XCTAssertEqual(object.keys, ["n", "t", "f", "i", "s", "a", "o"])
        XCTAssertEqual(object["n"], JSON.null)
        XCTAssertEqual(object["t"]?.boolValue, true)
        XCTAssertEqual(object["f"]?.boolValue, false)
        XCTAssertEqual(object["i"]?.numberValue?.int64, -12)
        XCTAssertEqual(object["s"]?.stringValue, "x")
        XCTAssertEqual(object["a"], [1, [2]])
        XCTAssertEqual(object["o"], ["k": "v"])

        let array = try XCTUnwrap(values["y_array_mixed"]?.arrayValue)
        XCTAssertEqual(array.count, 7)
        XCTAssertTrue(array[0].isNull)
        XCTAssertEqual(array[1], true)
        XCTAssertEqual(array[2], false)
        XCTAssertEqual(array[3].numberValue?.literal, "0")
        XCTAssertEqual(array[4], "")
        XCTAssertEqual(array[5].arrayValue?.isEmpty, true)
        XCTAssertEqual(array[6].objectValue?.isEmpty, true)
    }

    func testObjectMemberOrderIsPreserved() throws {
        let value = try XCTUnwrap(mustParse(#"{"z":1,"a":2,"m":3,"b":4}"#))
        XCTAssertEqual(value.objectValue?.keys, ["z", "a", "m", "b"])
    }

    func testDuplicateKeysAreKeptAndTheLastOneWins() throws {
        let value = try XCTUnwrap(mustParse(#"{"a":1,"b":2,"a":3}"#))
        let object = try XCTUnwrap(value.objectValue)
        XCTAssertEqual(object.count, 3, "all members are kept in order")
        XCTAssertEqual(object.keys, ["a", "b", "a"])
        XCTAssertEqual(object["a"]?.numberValue?.literal, "3")
        XCTAssertEqual(value["a"]?.numberValue?.literal, "3")
    }

    func testLeadingAndTrailingWhitespaceIsAccepted() {
        for text in [" 1", "1 ", "\n\ttrue\r\n", "\r\n{}\r\n", "   \"x\"   ", "\t[\t]\t"] {
            XCTAssertNotNil(mustParse(text), "whitespace around \(text.debugDescription)")
        }
        XCTAssertEqual(mustParse("  \"x\"\n"), "x")
        XCTAssertEqual(mustParse("\t-5 "), JSON.int(-5))
    }

    func testAllParseEntryPointsAgree() throws {
        let text = #"{"a":[1,"é",null]}"#
        let bytes = u8(text)
        let expected: JSON = ["a": [1, "é", nil]]

        XCTAssertEqual(try JSONParser.parse(text), expected)
        XCTAssertEqual(try JSONParser.parse(bytes), expected)
        XCTAssertEqual(try JSONParser.parse(bytes[...]), expected)
        XCTAssertEqual(try bytes.withUnsafeBufferPointer { (b) throws(JSONParseError) -> JSON in try JSONParser.parse(b) }, expected)
        // A collection without contiguous storage takes the copying path.
        XCTAssertEqual(try JSONParser.parse(bytes.lazy.map { $0 }), expected)
        XCTAssertEqual(try JSONParser.parse(text.utf8), expected)
    }

    func testParsingASliceUsesOffsetsRelativeToTheSlice() {
        let bytes = u8("xxx[1,]yyy")
        let slice = bytes[3..<7] // "[1,]"
        XCTAssertThrowsError(try JSONParser.parse(slice)) { error in
            XCTAssertEqual(error as? JSONParseError, JSONParseError(reason: .unexpectedByte(UInt8(ascii: "]")), offset: 3))
        }
        XCTAssertEqual(try JSONParser.parse(bytes[3..<5] + [UInt8(ascii: "]")]), [1]) // "[1" + "]"
        XCTAssertEqual(try JSONParser.parse(u8("[1]junk")[0..<3]), [1])
    }
}
