import XCTest
@testable import LarderJSON

/// Raw UTF-8 inside strings: well-formed sequences pass through, anything
/// Unicode's table 3-7 forbids is rejected at the first byte of the bad sequence.
final class UTF8ValidationTests: XCTestCase {
    private let quote: [UInt8] = [0x22]

    /// `"` + bytes + `"`.
    private func quoted(_ bytes: [UInt8]) -> [UInt8] { quote + bytes + quote }

    func testWellFormedMultiByteCharactersAreAccepted() {
        let cases: [(String, [UInt8], UInt32)] = [
            ("y_string_utf8_2byte_smallest_U+0080", [0xC2, 0x80], 0x80),
            ("y_string_utf8_2byte_e_acute", [0xC3, 0xA9], 0xE9),
            ("y_string_utf8_2byte_largest_U+07FF", [0xDF, 0xBF], 0x7FF),
            ("y_string_utf8_3byte_smallest_U+0800", [0xE0, 0xA0, 0x80], 0x800),
            ("y_string_utf8_3byte_euro", [0xE2, 0x82, 0xAC], 0x20AC),
            ("y_string_utf8_3byte_U+2028_line_sep", [0xE2, 0x80, 0xA8], 0x2028),
            ("y_string_utf8_3byte_last_before_surrogates_U+D7FF", [0xED, 0x9F, 0xBF], 0xD7FF),
            ("y_string_utf8_3byte_first_after_surrogates_U+E000", [0xEE, 0x80, 0x80], 0xE000),
            ("y_string_utf8_3byte_BOM_inside_string", [0xEF, 0xBB, 0xBF], 0xFEFF),
            ("y_string_nonCharacterInUTF-8_U+FFFF", [0xEF, 0xBF, 0xBF], 0xFFFF),
            ("y_string_utf8_4byte_smallest_U+10000", [0xF0, 0x90, 0x80, 0x80], 0x10000),
            ("y_string_utf8_4byte_grinning_face", [0xF0, 0x9F, 0x98, 0x80], 0x1F600),
            ("y_string_utf8_4byte_F3", [0xF3, 0xBF, 0xBF, 0xBF], 0xFFFFF),
            ("y_string_nonCharacterInUTF-8_U+10FFFF", [0xF4, 0x8F, 0xBF, 0xBF], 0x10FFFF),
        ]
        for (name, bytes, scalar) in cases {
            for (context, text) in [("alone", quoted(bytes)),
                                    ("in array after text", u8("[\"ab") + bytes + u8("cd\"]")),
                                    ("as a key", u8("{\"") + bytes + u8("\":0}"))] {
                guard let value = mustParse(text) else {
                    XCTFail("\(name) \(context)")
                    continue
                }
                let s = value.stringValue ?? value.arrayValue?.first?.stringValue ?? value.objectValue?.keys.first
                let expected = context == "in array after text" ? [0x61, 0x62, scalar, 0x63, 0x64] : [scalar]
                XCTAssertEqual(s?.unicodeScalars.map(\.value), expected, "\(name) \(context)")
                XCTAssertEqual(s.map { Array($0.utf8) }, context == "in array after text" ? u8("ab") + bytes + u8("cd") : bytes, "\(name) \(context)")
            }
        }
    }

    func testMixedTextIsKeptExactly() throws {
        let text = "\"Grüße, 日本語, עברית, 😀🇫🇷 \\n done\""
        let s = try XCTUnwrap(parsedString(u8(text)))
        XCTAssertEqual(Array(s.unicodeScalars), Array("Grüße, 日本語, עברית, 😀🇫🇷 \n done".unicodeScalars))
        XCTAssertEqual(mustParse("\"ASCII \u{7F} DEL\"")?.stringValue, "ASCII \u{7F} DEL", "y_string_with_del_character")
    }

    func testMalformedSequencesAreRejectedAtTheirFirstByte() {
        // Each sequence is tried alone in a string (offset 1) and after some text (offset 4).
        let malformed: [(String, [UInt8])] = [
            ("n_string_bare_continuation_byte_80", [0x80]),
            ("n_string_bare_continuation_byte_BF", [0xBF]),
            ("n_string_two_continuation_bytes", [0x80, 0x80]),
            ("n_string_overlong_2byte_C0_80", [0xC0, 0x80]),
            ("n_string_overlong_2byte_C0_AF_solidus", [0xC0, 0xAF]),
            ("n_string_overlong_2byte_C1_BF", [0xC1, 0xBF]),
            ("n_string_overlong_3byte_E0_80_80", [0xE0, 0x80, 0x80]),
            ("n_string_overlong_3byte_E0_9F_BF", [0xE0, 0x9F, 0xBF]),
            ("n_string_overlong_4byte_F0_80_80_80", [0xF0, 0x80, 0x80, 0x80]),
            ("n_string_overlong_4byte_F0_8F_BF_BF", [0xF0, 0x8F, 0xBF, 0xBF]),
            ("n_string_utf8_encoded_high_surrogate_ED_A0_80", [0xED, 0xA0, 0x80]),
            ("n_string_utf8_encoded_low_surrogate_ED_BF_BF", [0xED, 0xBF, 0xBF]),
            ("n_string_utf8_encoded_surrogate_pair_CESU8", [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80]),
            ("n_string_above_U+10FFFF_F4_90_80_80", [0xF4, 0x90, 0x80, 0x80]),
            ("n_string_above_U+10FFFF_F4_BF_BF_BF", [0xF4, 0xBF, 0xBF, 0xBF]),
            ("n_string_lead_F5", [0xF5, 0x80, 0x80, 0x80]),
            ("n_string_lead_F7", [0xF7, 0xBF, 0xBF, 0xBF]),
            ("n_string_5byte_F8", [0xF8, 0x88, 0x80, 0x80, 0x80]),
            ("n_string_6byte_FC", [0xFC, 0x84, 0x80, 0x80, 0x80, 0x80]),
            ("n_string_byte_FE", [0xFE]),
            ("n_string_byte_FF", [0xFF]),
            ("n_string_truncated_2byte_before_quote", [0xC3]),
            ("n_string_truncated_3byte_before_quote", [0xE2, 0x82]),
            ("n_string_truncated_4byte_before_quote", [0xF0, 0x9F, 0x98]),
            ("n_string_lead_then_ascii", [0xC3, 0x41]),
            ("n_string_3byte_bad_third_byte", [0xE2, 0x82, 0x41]),
            ("n_string_4byte_bad_fourth_byte", [0xF0, 0x9F, 0x98, 0x41]),
            ("n_string_4byte_bad_third_byte", [0xF0, 0x9F, 0xC3, 0xA9]),
            ("n_string_lead_then_lead", [0xC3, 0xC3, 0xA9]),
            ("n_string_2byte_lead_then_control", [0xC3, 0x01]),
            ("n_string_iso_latin_1", [0xE9]),
            ("n_string_UTF-16LE_with_BOM", [0xFF, 0xFE, 0x61, 0x00]),
        ]
        var cases: [RejectionCase] = []
        for (name, bytes) in malformed {
            cases.append(RejectionCase(name, quoted(bytes), .invalidUTF8, at: 1))
            cases.append(RejectionCase(name + "_after_text", u8("[\"ab") + bytes + u8("\"]"), .invalidUTF8, at: 4))
        }
        assertAllRejected(cases)
    }

    func testTheOffsetPointsAtTheBadSequenceNotAtTheStringStart() {
        assertAllRejected([
            RejectionCase("n_string_bad_byte_after_valid_char", quoted([0xC3, 0xA9, 0x80]), .invalidUTF8, at: 3),
            RejectionCase("n_string_bad_byte_after_emoji", quoted([0xF0, 0x9F, 0x98, 0x80, 0xC0, 0x80]), .invalidUTF8, at: 5),
            RejectionCase("n_string_bad_byte_after_escape", u8(#""\n\u00e9"#) + [0xED, 0xA0, 0x80] + quote, .invalidUTF8, at: 9),
            RejectionCase("n_object_key_invalid_utf8", u8("{\"") + [0xFF] + u8("\":1}"), .invalidUTF8, at: 2),
            RejectionCase("n_object_value_invalid_utf8", u8("{\"a\":\"x") + [0xF4, 0x90, 0x80, 0x80] + u8("\"}"), .invalidUTF8, at: 7),
            RejectionCase("n_string_second_element_invalid_utf8", u8("[\"é\",\"") + [0xE0, 0x80, 0x80] + u8("\"]"), .invalidUTF8, at: 7),
        ])
    }

    func testSequencesCutByTheEndOfInputAreUnexpectedEnd() {
        // Valid so far, but the input stops inside the character.
        assertAllRejected([
            RejectionCase("n_string_2byte_cut_by_end", quote + [0xC3], .unexpectedEnd, at: 2),
            RejectionCase("n_string_3byte_cut_after_lead", quote + [0xE2], .unexpectedEnd, at: 2),
            RejectionCase("n_string_3byte_cut_after_two", quote + [0xE2, 0x82], .unexpectedEnd, at: 3),
            RejectionCase("n_string_4byte_cut_after_lead", quote + [0xF0], .unexpectedEnd, at: 2),
            RejectionCase("n_string_4byte_cut_after_three", quote + [0xF0, 0x9F, 0x98], .unexpectedEnd, at: 4),
            RejectionCase("n_string_4byte_cut_after_text", u8("[\"abc") + [0xF4, 0x8F, 0xBF], .unexpectedEnd, at: 8),
            // What is there is already wrong: invalid, at the sequence.
            RejectionCase("n_string_3byte_cut_with_bad_continuation", quote + [0xE2, 0x41], .invalidUTF8, at: 1),
            RejectionCase("n_string_4byte_cut_with_bad_continuation", quote + [0xF0, 0x9F, 0x41], .invalidUTF8, at: 1),
            RejectionCase("n_string_invalid_lead_at_end", quote + [0xFF], .invalidUTF8, at: 1),
            RejectionCase("n_string_continuation_at_end", quote + [0x80], .invalidUTF8, at: 1),
            RejectionCase("n_string_overlong_lead_at_end", quote + [0xC0], .invalidUTF8, at: 1),
        ])
    }

    func testNonASCIIOutsideStringsIsAnUnexpectedByte() {
        assertAllRejected([
            RejectionCase("n_structure_UTF8_BOM_no_data", [0xEF, 0xBB, 0xBF], .unexpectedByte(0xEF), at: 0),
            RejectionCase("n_structure_UTF8_BOM_before_value", [0xEF, 0xBB, 0xBF] + u8("[]"), .unexpectedByte(0xEF), at: 0),
            RejectionCase("n_structure_lone_invalid_utf8", [0xFF], .unexpectedByte(0xFF), at: 0),
            RejectionCase("n_structure_invalid_utf8_in_array", u8("[") + [0xE5] + u8("]"), .unexpectedByte(0xE5), at: 1),
            RejectionCase("n_structure_unicode_identifier", u8("å"), .unexpectedByte(0xC3), at: 0),
            RejectionCase("n_structure_nbsp_as_whitespace", u8("[\u{A0}1]"), .unexpectedByte(0xC2), at: 1),
            RejectionCase("n_number_arabic_indic_digit", u8("[١]"), .unexpectedByte(0xD9), at: 1),
        ])
    }

    /// Every two-byte combination of non-ASCII bytes, checked against the
    /// standard library's own UTF-8 validation.
    func testAgreesWithTheStandardLibraryOnAllTwoByteSequences() {
        for b0 in UInt8(0x80)...0xFF {
            for b1 in UInt8(0x80)...0xFF {
                checkAgainstStandardLibrary([b0, b1])
            }
        }
    }

    /// Three- and four-byte leads with every second byte, the bytes after it
    /// drawn from continuation bytes at the edges and non-continuations.
    func testAgreesWithTheStandardLibraryOnLongerSequences() {
        let tails: [[UInt8]] = [[0x80], [0xBF], [0x41], [0xC3], [0x80, 0x80], [0xBF, 0xBF], [0x80, 0x41], [0x41, 0x80]]
        for b0 in UInt8(0xE0)...0xFF {
            for b1 in UInt8(0x80)...0xFF {
                for tail in tails { checkAgainstStandardLibrary([b0, b1] + tail) }
            }
        }
    }

    private func checkAgainstStandardLibrary(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        let text = quoted(bytes)
        let result = parseResult(text)
        if let expected = String(validating: bytes, as: UTF8.self) {
            switch result {
            case .success(let value):
                XCTAssertEqual(value.stringValue.map { Array($0.utf8) }, Array(expected.utf8), hexDump(text), file: file, line: line)
            case .failure(let error):
                XCTFail("[\(hexDump(text))] is valid UTF-8 but was rejected: \(error)", file: file, line: line)
            }
        } else {
            switch result {
            case .success:
                XCTFail("[\(hexDump(text))] is invalid UTF-8 but was accepted", file: file, line: line)
            case .failure(let error):
                XCTAssertEqual(error.reason, .invalidUTF8, "[\(hexDump(text))]: \(error)", file: file, line: line)
                XCTAssertTrue((1...bytes.count).contains(error.offset), "[\(hexDump(text))]: \(error)", file: file, line: line)
            }
        }
    }
}
