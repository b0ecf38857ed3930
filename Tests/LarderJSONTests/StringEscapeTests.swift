import XCTest
@testable import LarderJSON

/// Backslash escapes and `\u` surrogate pairs inside strings.
final class StringEscapeTests: XCTestCase {
    /// (name, JSON text, the string it must decode to).
    private let decoded: [(String, String, String)] = [
        ("y_string_escaped_quote", #""\"""#, "\""),
        ("y_string_escaped_backslash", #""\\""#, "\\"),
        ("y_string_escaped_solidus", #""\/""#, "/"),
        ("y_string_escaped_backspace", #""\b""#, "\u{08}"),
        ("y_string_escaped_formfeed", #""\f""#, "\u{0C}"),
        ("y_string_escaped_newline", #""\n""#, "\n"),
        ("y_string_escaped_carriage_return", #""\r""#, "\r"),
        ("y_string_escaped_tab", #""\t""#, "\t"),
        ("y_string_allowed_escapes", #""\"\\\/\b\f\n\r\t""#, "\"\\/\u{08}\u{0C}\n\r\t"),
        ("y_string_unicode_escaped_null", #""\u0000""#, "\u{0}"),
        ("y_string_null_escape_between_text", #""foo\u0000bar""#, "foo\u{0}bar"),
        ("y_string_uescaped_newline", #""new\u000Aline""#, "new\nline"),
        ("y_string_escaped_control_character", #""\u0012""#, "\u{12}"),
        ("y_string_escaped_unit_separator", #""\u001f""#, "\u{1F}"),
        ("y_string_one-byte-utf-8", #""\u002c""#, ","),
        ("y_string_two-byte-utf-8", #""\u0123""#, "\u{123}"),
        ("y_string_three-byte-utf-8", #""\u0821""#, "\u{821}"),
        ("y_string_unicode_lowercase_hex", #""\u00e9""#, "é"),
        ("y_string_unicode_uppercase_hex", #""\u00E9""#, "é"),
        ("y_string_unicode_mixed_case_hex", #""\uaBcD""#, "\u{ABCD}"),
        ("y_string_unicode_all_hex_digits", #""\u0123\u4567\u89AB\uCDEF\uabcd\uef4A""#, "\u{0123}\u{4567}\u{89AB}\u{CDEF}\u{abcd}\u{ef4A}"),
        ("y_string_unicode_U+2028_line_sep", #""\u2028""#, "\u{2028}"),
        ("y_string_unicode_U+FFFF_nonchar", #""\uFFFF""#, "\u{FFFF}"),
        ("y_string_unicode_U+FDD0_nonchar", #""\uFDD0""#, String(Unicode.Scalar(0xFDD0)!)),
        ("y_string_unicode_last_before_surrogates", #""\uD7FF""#, "\u{D7FF}"),
        ("y_string_unicode_first_after_surrogates", #""\uE000""#, "\u{E000}"),
        ("y_string_surrogate_pair_grinning_face", #""\uD83D\uDE00""#, "😀"),
        ("y_string_surrogate_pair_lowercase", #""\ud83d\ude00""#, "😀"),
        ("y_string_surrogate_pair_G_clef", #""\uD834\uDD1E""#, "\u{1D11E}"),
        ("y_string_surrogate_pair_first_supplementary", #""\uD800\uDC00""#, "\u{10000}"),
        ("y_string_last_surrogates_1_and_2", #""\uDBFF\uDFFF""#, "\u{10FFFF}"),
        ("y_string_accepted_surrogate_pairs", #""\ud83d\ude39\ud83d\udc8d""#, "😹💍"),
        ("y_string_surrogate_pair_between_text", #""a\uD83D\uDE00b""#, "a😀b"),
        ("y_string_backslash_and_u_escaped_zero", #""\\u0000""#, "\\u0000"),
        ("y_string_double_escape_a", #""\\a""#, "\\a"),
        ("y_string_double_escape_n", #""\\n""#, "\\n"),
        ("y_string_escape_then_raw_utf8", #""\n"# + "é😀\"", "\né😀"),
        ("y_string_raw_utf8_then_escape", "\"é😀" + #"\t\u00e9""#, "é😀\té"),
        ("y_string_escape_at_start_and_end", #""\"abc\"""#, "\"abc\""),
        ("y_string_only_escapes", #""\\\\\\""#, "\\\\\\"),
        ("y_string_in_array", #"["\u0041\n"]"#, "A\n"),
    ]

    func testEscapesDecodeToTheRightCharacters() {
        for (name, text, expected) in decoded {
            XCTAssertTrue(name.hasPrefix("y_"), name)
            guard let value = mustParse(text) else { continue }
            let string: String?
            if case .array(let a) = value, a.count == 1 { string = a[0].stringValue } else { string = value.stringValue }
            guard let string else {
                XCTFail("\(name): expected a string, got \(value)")
                continue
            }
            // Compare scalars, not `String ==` (which ignores canonical-equivalence differences).
            XCTAssertEqual(Array(string.unicodeScalars), Array(expected.unicodeScalars), name)
        }
    }

    func testEscapesAreAcceptedInObjectKeys() throws {
        let value = try XCTUnwrap(mustParse(#"{"a\"b":1,"\u00e9":2,"\uD83D\uDE00":3,"\/":4,"foo\u0000bar":5}"#))
        XCTAssertEqual(value.objectValue?.keys, ["a\"b", "é", "😀", "/", "foo\u{0}bar"])
        XCTAssertEqual(value["foo\u{0}bar"]?.numberValue?.int64, 5)
    }

    func testSurrogatePairBecomesOneFourByteCharacter() throws {
        let s = try XCTUnwrap(parsedString(u8(#""\uD83D\uDE00""#)))
        XCTAssertEqual(s, "😀")
        XCTAssertEqual(s.unicodeScalars.count, 1)
        XCTAssertEqual(s.unicodeScalars.first?.value, 0x1F600)
        XCTAssertEqual(Array(s.utf8), [0xF0, 0x9F, 0x98, 0x80])
    }

    func testEscapedNullIsKeptInsideTheString() throws {
        let s = try XCTUnwrap(parsedString(u8(#""a\u0000b""#)))
        XCTAssertEqual(Array(s.utf8), [0x61, 0x00, 0x62])
    }

    func testEveryBMPEscapeOutsideTheSurrogatesDecodes() {
        // A sweep of \uXXXX values, each checked against the scalar it names.
        var scalar: UInt32 = 0
        while scalar <= 0xFFFF {
            defer { scalar += 0x3B }
            if (0xD800...0xDFFF).contains(scalar) { continue }
            let hex = String(scalar, radix: 16)
            let text = "\"\\u" + String(repeating: "0", count: 4 - hex.count) + hex + "\""
            guard let s = parsedString(u8(text)) else { continue }
            XCTAssertEqual(s.unicodeScalars.map(\.value), [scalar], text)
        }
    }

    func testSurrogateProblemsAreRejectedAsLoneSurrogates() {
        assertAllRejected([
            RejectionCase("n_string_lone_high_surrogate", #""\uD800""#, .loneSurrogate, at: 1),
            RejectionCase("n_string_lone_high_surrogate_DBFF", #""\uDBFF""#, .loneSurrogate, at: 1),
            RejectionCase("n_string_lone_low_surrogate", #""\uDC00""#, .loneSurrogate, at: 1),
            RejectionCase("n_string_lone_low_surrogate_DFFF", #""\uDFFF""#, .loneSurrogate, at: 1),
            RejectionCase("n_string_lone_high_surrogate_in_array", #"["\uD800"]"#, .loneSurrogate, at: 2),
            RejectionCase("n_string_lone_low_surrogate_after_text", #""ab\uDE00""#, .loneSurrogate, at: 3),
            RejectionCase("n_string_lone_high_surrogate_then_text", #""\uD83Dabcdef""#, .loneSurrogate, at: 1),
            RejectionCase("n_string_high_surrogate_then_non_surrogate_escape", #""\uD800\u0041""#, .loneSurrogate, at: 1),
            RejectionCase("n_string_high_surrogate_then_other_escape", #""\uD800\n""#, .loneSurrogate, at: 1),
            RejectionCase("n_string_two_high_surrogates", #""\uD800\uD800""#, .loneSurrogate, at: 1),
            RejectionCase("n_string_reversed_surrogate_pair", #""\uDE00\uD83D""#, .loneSurrogate, at: 1),
            RejectionCase("n_string_incomplete_surrogate_escape_invalid", #"["\uD800\uD800\x"]"#, .loneSurrogate, at: 2),
            RejectionCase("n_string_valid_pair_then_lone_low", #""\uD83D\uDE00\uDE00""#, .loneSurrogate, at: 13),
            RejectionCase("n_object_key_lone_surrogate", #"{"\uDC00":1}"#, .loneSurrogate, at: 2),
            RejectionCase("n_string_lone_high_surrogate_unterminated", #""\uD800"#, .loneSurrogate, at: 1),
        ])
    }

    func testInvalidEscapesAreRejected() {
        assertAllRejected([
            RejectionCase("n_string_escape_x", #""\x""#, .invalidEscape, at: 1),
            RejectionCase("n_string_escape_x_hex", #"["\x00"]"#, .invalidEscape, at: 2),
            RejectionCase("n_string_invalid_backslash_esc", #"["\a"]"#, .invalidEscape, at: 2),
            RejectionCase("n_string_escape_capital_U", #""\U0041""#, .invalidEscape, at: 1),
            RejectionCase("n_string_escape_zero", #""\0""#, .invalidEscape, at: 1),
            RejectionCase("n_string_escape_single_quote", #""\'""#, .invalidEscape, at: 1),
            RejectionCase("n_string_escape_space", #""\ ""#, .invalidEscape, at: 1),
            RejectionCase("n_string_escape_after_text", #""abc\q""#, .invalidEscape, at: 4),
            RejectionCase("n_string_escaped_emoji", u8("[\"\\") + u8("🌀\"]"), .invalidEscape, at: 2),
            RejectionCase("n_string_escaped_ctrl_char_tab", [0x5B, 0x22, 0x5C, 0x09, 0x22, 0x5D], .invalidEscape, at: 2),
            RejectionCase("n_string_escaped_newline_byte", [0x22, 0x5C, 0x0A, 0x22], .invalidEscape, at: 1),
            // A bad hex digit is reported where it is.
            RejectionCase("n_string_invalid_unicode_escape", #"["\uqqqq"]"#, .invalidEscape, at: 4),
            RejectionCase("n_string_unicode_escape_bad_last_digit", #""\u123g""#, .invalidEscape, at: 6),
            RejectionCase("n_string_u12_in_array", #"["\u12"]"#, .invalidEscape, at: 6),
            RejectionCase("n_string_incomplete_escaped_character", #"["\u00A"]"#, .invalidEscape, at: 7),
            RejectionCase("n_string_1_surrogate_then_escape_u1x", #"["\uD800\u1x"]"#, .invalidEscape, at: 11),
            RejectionCase("n_string_unicode_escape_with_sign", #""\u+123""#, .invalidEscape, at: 3),
            // Cut off by the end of the input.
            RejectionCase("n_string_backslash_at_end", #""\"#, .unexpectedEnd, at: 2),
            RejectionCase("n_string_start_escape_unclosed", #"["\"#, .unexpectedEnd, at: 3),
            RejectionCase("n_string_escaped_quote_unclosed", #""\""#, .unexpectedEnd, at: 3),
        ])
        // Rejected; the reason is not pinned down for these truncated `\u` escapes.
        assertAllRejected([
            JSONCase("n_string_u12", #""\u12""#),
            JSONCase("n_string_u_alone", #""\u""#),
            JSONCase("n_string_u_at_end", #""\u"#),
            JSONCase("n_string_1_surrogate_then_escape", #"["\uD800\"]"#),
            JSONCase("n_string_1_surrogate_then_escape_u", #"["\uD800\u"]"#),
            JSONCase("n_string_1_surrogate_then_escape_u1", #"["\uD800\u1"]"#),
            JSONCase("n_string_escaped_backslash_bad", #"["\\\"]"#),
            JSONCase("n_string_no_quotes_with_bad_escape", #"[\n]"#),
        ])
    }
}
