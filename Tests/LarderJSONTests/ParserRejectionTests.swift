import XCTest
@testable import LarderJSON

/// `n_` cases: texts that are not JSON, with the reason and byte offset reported.
final class ParserRejectionTests: XCTestCase {
    private func ub(_ c: Character) -> JSONParseError.Reason { .unexpectedByte(c.asciiValue!) }

    func testEmptyAndBlankInputsAreRejected() {
        assertAllRejected([
            RejectionCase("n_structure_no_data", [], .unexpectedEnd, at: 0),
            RejectionCase("n_single_space", " ", .unexpectedEnd, at: 1),
            RejectionCase("n_structure_whitespace_only", " \t\r\n", .unexpectedEnd, at: 4),
        ])
        XCTAssertThrowsError(try JSONParser.parse("")) { error in
            XCTAssertEqual(error as? JSONParseError, JSONParseError(reason: .unexpectedEnd, offset: 0))
        }
        let empty: [UInt8] = []
        XCTAssertThrowsError(try empty.withUnsafeBufferPointer { (b) throws(JSONParseError) -> JSON in try JSONParser.parse(b) }) { error in
            XCTAssertEqual((error as? JSONParseError)?.reason, .unexpectedEnd)
        }
    }

    func testTrailingGarbageIsRejectedWhereItStarts() {
        assertAllRejected([
            RejectionCase("n_structure_array_trailing_garbage", "[1]x", .trailingGarbage, at: 3),
            RejectionCase("n_structure_array_with_extra_array_close", "[1]]", .trailingGarbage, at: 3),
            RejectionCase("n_structure_object_with_trailing_garbage", #"{"a": true} "x""#, .trailingGarbage, at: 12),
            RejectionCase("n_structure_object_followed_by_closing_object", #"{"a":1}}"#, .trailingGarbage, at: 7),
            RejectionCase("n_structure_two_objects", "{} {}", .trailingGarbage, at: 3),
            RejectionCase("n_structure_two_numbers", "1 2", .trailingGarbage, at: 2),
            RejectionCase("n_structure_two_strings", #""a""b""#, .trailingGarbage, at: 3),
            RejectionCase("n_structure_two_literals", "true false", .trailingGarbage, at: 5),
            RejectionCase("n_structure_literal_with_suffix", "truex", .trailingGarbage, at: 4),
            RejectionCase("n_structure_trailing_comma_after_value", "1,", .trailingGarbage, at: 1),
            RejectionCase("n_structure_trailing_null_byte", u8("[]") + [0x00], .trailingGarbage, at: 2),
            RejectionCase("n_structure_trailing_hash", "{}#", .trailingGarbage, at: 2),
            RejectionCase("n_structure_trailing_line_comment", "[1] // comment", .trailingGarbage, at: 4),
            RejectionCase("n_structure_trailing_block_comment", "[1]/**/", .trailingGarbage, at: 3),
            RejectionCase("n_structure_garbage_after_whitespace", "[1] \n\t x", .trailingGarbage, at: 7),
        ])
    }

    func testMalformedArraysAndObjectsAreRejected() {
        assertAllRejected([
            RejectionCase("n_array_extra_comma", "[1,]", ub("]"), at: 3),
            RejectionCase("n_array_extra_comma_whitespace", "[1, ]", ub("]"), at: 4),
            RejectionCase("n_array_just_comma", "[,]", ub(","), at: 1),
            RejectionCase("n_array_comma_first", "[,1]", ub(","), at: 1),
            RejectionCase("n_array_double_comma", "[1,,2]", ub(","), at: 3),
            RejectionCase("n_array_missing_comma", "[1 2]", ub("2"), at: 3),
            RejectionCase("n_array_colon_instead_of_comma", #"["": 1]"#, ub(":"), at: 3),
            RejectionCase("n_array_unclosed", "[", .unexpectedEnd, at: 1),
            RejectionCase("n_array_unclosed_after_value", "[1", .unexpectedEnd, at: 2),
            RejectionCase("n_array_unclosed_after_comma", "[1,", .unexpectedEnd, at: 3),
            RejectionCase("n_array_unclosed_with_whitespace", "[ 1 , ", .unexpectedEnd, at: 6),
            RejectionCase("n_array_closed_with_brace", "[1}", ub("}"), at: 2),
            RejectionCase("n_array_empty_closed_with_brace", "[}", ub("}"), at: 1),
            RejectionCase("n_array_incomplete_invalid_value", "[x", ub("x"), at: 1),
            RejectionCase("n_structure_angle_bracket_null", "[<null>]", ub("<"), at: 1),
            RejectionCase("n_structure_lone_close_bracket", "]", ub("]"), at: 0),
            RejectionCase("n_structure_null_byte_outside_string", [0x5B, 0x00, 0x5D], .unexpectedByte(0x00), at: 1),
            RejectionCase("n_structure_form_feed_is_not_whitespace", [0x5B, 0x0C, 0x5D], .unexpectedByte(0x0C), at: 1),
            RejectionCase("n_structure_vertical_tab_is_not_whitespace", [0x0B, 0x31], .unexpectedByte(0x0B), at: 0),

            RejectionCase("n_object_trailing_comma", #"{"a":1,}"#, ub("}"), at: 7),
            RejectionCase("n_object_trailing_comma_whitespace", #"{"a":1 , }"#, ub("}"), at: 9),
            RejectionCase("n_object_just_comma", "{,}", ub(","), at: 1),
            RejectionCase("n_object_unquoted_key", "{a:1}", ub("a"), at: 1),
            RejectionCase("n_object_single_quoted_key", "{'a':1}", ub("'"), at: 1),
            RejectionCase("n_object_non_string_key", "{1:1}", ub("1"), at: 1),
            RejectionCase("n_object_null_key", "{null:1}", ub("n"), at: 1),
            RejectionCase("n_object_missing_colon", #"{"a" 1}"#, ub("1"), at: 5),
            RejectionCase("n_object_comma_instead_of_colon", #"{"a","b"}"#, ub(","), at: 4),
            RejectionCase("n_object_double_colon", #"{"a"::1}"#, ub(":"), at: 5),
            RejectionCase("n_object_missing_value", #"{"a":}"#, ub("}"), at: 5),
            RejectionCase("n_object_missing_comma", #"{"a":1 "b":2}"#, ub("\""), at: 7),
            RejectionCase("n_object_closed_with_bracket", #"{"a":1]"#, ub("]"), at: 6),
            RejectionCase("n_object_empty_closed_with_bracket", "{]", ub("]"), at: 1),
            RejectionCase("n_object_unclosed", "{", .unexpectedEnd, at: 1),
            RejectionCase("n_object_unclosed_after_key", #"{"a""#, .unexpectedEnd, at: 4),
            RejectionCase("n_object_unclosed_after_colon", #"{"a":"#, .unexpectedEnd, at: 5),
            RejectionCase("n_object_unclosed_after_value", #"{"a":1"#, .unexpectedEnd, at: 6),
            RejectionCase("n_object_unclosed_after_comma", #"{"a":1,"#, .unexpectedEnd, at: 7),
            RejectionCase("n_object_unterminated_key", #"{"a"#, .unexpectedEnd, at: 3),
            RejectionCase("n_structure_lone_close_brace", "}", ub("}"), at: 0),
            RejectionCase("n_structure_colon_alone", ":", ub(":"), at: 0),
            RejectionCase("n_structure_comma_alone", ",", ub(","), at: 0),
            RejectionCase("n_structure_leading_block_comment", "/**/ 1", ub("/"), at: 0),
        ])
    }

    func testMisspelledAndForeignLiteralsAreRejected() {
        assertAllRejected([
            RejectionCase("n_incomplete_true", "tru", .unexpectedEnd, at: 3),
            RejectionCase("n_incomplete_false", "fals", .unexpectedEnd, at: 4),
            RejectionCase("n_incomplete_null", "nul", .unexpectedEnd, at: 3),
            RejectionCase("n_incomplete_true_in_array", "[tru", .unexpectedEnd, at: 4),
            RejectionCase("n_incomplete_true_then_bracket", "[tru]", ub("]"), at: 4),
            RejectionCase("n_structure_capitalized_True", "True", ub("T"), at: 0),
            RejectionCase("n_structure_wrong_case_inside", "trUe", ub("U"), at: 2),
            RejectionCase("n_structure_nul_capital_L", "nulL", ub("L"), at: 3),
            RejectionCase("n_array_truth", "[truth]", ub("t"), at: 4),
            RejectionCase("n_structure_NaN", "NaN", ub("N"), at: 0),
            RejectionCase("n_number_NaN_in_array", "[NaN]", ub("N"), at: 1),
            RejectionCase("n_structure_Infinity", "Infinity", ub("I"), at: 0),
            RejectionCase("n_number_minus_infinity", "-Infinity", .invalidNumber, at: 1),
            RejectionCase("n_number_minus_NaN", "[-NaN]", .invalidNumber, at: 2),
            RejectionCase("n_structure_undefined", "undefined", ub("u"), at: 0),
            RejectionCase("n_string_single_quote", "'a'", ub("'"), at: 0),
            RejectionCase("n_string_single_quote_in_array", "['single quote']", ub("'"), at: 1),
            RejectionCase("n_string_single_quoted_value", #"{"a":'b'}"#, ub("'"), at: 5),
        ])
    }

    func testMalformedNumbersAreRejected() {
        assertAllRejected([
            RejectionCase("n_number_leading_zero", "01", .trailingGarbage, at: 1),
            RejectionCase("n_number_leading_zero_in_array", "[012]", ub("1"), at: 2),
            RejectionCase("n_number_negative_leading_zero", "-01", .trailingGarbage, at: 2),
            RejectionCase("n_number_real_without_fractional_part", "1.", .unexpectedEnd, at: 2),
            RejectionCase("n_number_real_without_fractional_part_in_array", "[1.]", .invalidNumber, at: 3),
            RejectionCase("n_number_starting_with_dot", ".1", ub("."), at: 0),
            RejectionCase("n_number_starting_with_dot_in_array", "[.123]", ub("."), at: 1),
            RejectionCase("n_number_minus_alone", "-", .unexpectedEnd, at: 1),
            RejectionCase("n_number_minus_alone_in_array", "[-]", .invalidNumber, at: 2),
            RejectionCase("n_number_minus_space_1", "- 1", .invalidNumber, at: 1),
            RejectionCase("n_number_neg_real_without_int_part", "-.123", .invalidNumber, at: 1),
            RejectionCase("n_number_exponent_without_digits", "1e", .unexpectedEnd, at: 2),
            RejectionCase("n_number_exponent_without_digits_in_array", "[1e]", .invalidNumber, at: 3),
            RejectionCase("n_number_capital_E_without_digits", "1E", .unexpectedEnd, at: 2),
            RejectionCase("n_number_exponent_sign_without_digits", "1e+", .unexpectedEnd, at: 3),
            RejectionCase("n_number_exponent_minus_without_digits_in_array", "[1e-]", .invalidNumber, at: 4),
            RejectionCase("n_number_real_exponent_sign_cut", "1.0e+", .unexpectedEnd, at: 5),
            RejectionCase("n_number_double_e", "1ee2", .invalidNumber, at: 2),
            RejectionCase("n_number_dot_then_exponent", "1.e3", .invalidNumber, at: 2),
            RejectionCase("n_number_0.e1", "[0.e1]", .invalidNumber, at: 3),
            RejectionCase("n_number_double_dot", "1..2", .invalidNumber, at: 2),
            RejectionCase("n_number_exponent_with_fraction", "1e2.5", .trailingGarbage, at: 3),
            RejectionCase("n_number_two_dots_in_array", "[1.2.3]", ub("."), at: 4),
            RejectionCase("n_number_plus_one", "+1", ub("+"), at: 0),
            RejectionCase("n_number_plus_one_in_array", "[+1]", ub("+"), at: 1),
            RejectionCase("n_number_double_minus", "--1", .invalidNumber, at: 1),
            RejectionCase("n_number_hex", "0x1", .trailingGarbage, at: 1),
            RejectionCase("n_number_neg_hex", "-0x1", .trailingGarbage, at: 2),
            RejectionCase("n_number_underscore_separator", "1_000", .trailingGarbage, at: 1),
            RejectionCase("n_number_comma_decimal", "[1,5.]", .invalidNumber, at: 5),
            RejectionCase("n_number_exponent_sign_then_letter", "[2e+x]", .invalidNumber, at: 4),
        ])
    }

    func testUnescapedControlCharactersInStringsAreRejected() {
        var cases: [RejectionCase] = []
        for byte in UInt8(0x00)..<0x20 {
            let name = "n_string_unescaped_ctrl_char_0x" + String(byte, radix: 16)
            cases.append(RejectionCase(name, [0x22, byte, 0x22], .controlCharacterInString, at: 1))
            cases.append(RejectionCase(name + "_after_text", u8("[\"ab") + [byte] + u8("\"]"), .controlCharacterInString, at: 4))
        }
        cases += [
            RejectionCase("n_string_unescaped_newline", "[\"new\nline\"]", .controlCharacterInString, at: 5),
            RejectionCase("n_string_unescaped_tab", "[\"\t\"]", .controlCharacterInString, at: 2),
            RejectionCase("n_string_unescaped_ctrl_after_utf8", u8("\"é") + [0x01] + u8("\""), .controlCharacterInString, at: 3),
            RejectionCase("n_string_unescaped_ctrl_after_escape", u8(#""\n"#) + [0x1F] + u8("\""), .controlCharacterInString, at: 3),
            RejectionCase("n_object_key_with_newline", "{\"a\nb\":1}", .controlCharacterInString, at: 3),
        ]
        assertAllRejected(cases)
    }

    func testUnterminatedStringsAreRejected() {
        assertAllRejected([
            RejectionCase("n_string_single_doublequote", #"""#, .unexpectedEnd, at: 1),
            RejectionCase("n_string_unterminated", #""abc"#, .unexpectedEnd, at: 4),
            RejectionCase("n_string_unterminated_in_array", #"["abc"#, .unexpectedEnd, at: 5),
            RejectionCase("n_string_unterminated_after_utf8", "\"é", .unexpectedEnd, at: 3),
            RejectionCase("n_string_unterminated_after_escape", #""a\n"#, .unexpectedEnd, at: 4),
            RejectionCase("n_string_missing_open_quote", #"abc""#, ub("a"), at: 0),
        ])
    }

    func testErrorsAreThrownAsTypedJSONParseErrors() {
        do throws(JSONParseError) {
            _ = try JSONParser.parse("[1,]")
            XCTFail("must throw")
        } catch {
            // `error` is statically a JSONParseError (typed throws).
            XCTAssertEqual(error.reason, .unexpectedByte(UInt8(ascii: "]")))
            XCTAssertEqual(error.offset, 3)
        }
    }

    func testAFailedParseDoesNotAffectTheNext() throws {
        XCTAssertThrowsError(try JSONParser.parse("[[[[1,"))
        XCTAssertEqual(try JSONParser.parse("[[1]]"), [[1]])
    }
}
