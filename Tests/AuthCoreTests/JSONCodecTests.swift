import Foundation
import Testing
@testable import AuthCore

/// The hand-written JSON reader and writer: the same values as Foundation's, and refusals with where.
@Suite struct JSONCodecTests {
    func parse(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

    @Test func readsEveryKindOfValue() throws {
        let value = try parse(#" {"a": [1, -2.5, 3e2, true, false, null], "s": "q\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "e": {}} "#)
        #expect(value == ["a": [1, .double(-2.5), .double(300), true, false, nil], "s": "q\"\\/\u{8}\u{C}\n\r\té😀", "e": [:]])
        #expect(try parse("9223372036854775807") == .int(Int.max))
    }

    @Test func refusesMalformedTextSayingWhere() {
        let cases: [(String, String)] = [
            ("{\"a\":1,}", "expected a string key at byte 7"), ("[1 2]", "expected ',' or ']' at byte 3"),
            ("\"\\ud800\"", "unpaired surrogate at byte 7"), ("tru", "unexpected end of input at byte 3"), ("01", "unexpected text after the JSON value at byte 1"),
            ("\"a\u{1}\"", "control character in a string at byte 2"), ("[1] x", "unexpected text after the JSON value at byte 4"),
        ]
        for (text, message) in cases {
            #expect(throws: JSONSyntaxError.self, "\(text)") { try parse(text) }
            #expect((try? parse(text)) == nil)
            do { _ = try parse(text) } catch { #expect("\(error)" == message, "\(text)") }
        }
        #expect(throws: JSONSyntaxError.self) { try JSON.parse([0x22, 0xFF, 0x22]) }
        #expect(throws: JSONSyntaxError.self) { try parse(String(repeating: "[", count: 600) + String(repeating: "]", count: 600)) }
        #expect(throws: JSONSyntaxError.self) { try parse("1e400") }
    }

    @Test func writesWhatJSONEncoderWrote() throws {
        let value: JSON = ["b": [1, .double(2.5), "x/y", "é\n\u{1}"], "a": nil, "c": ["z": true, "y": .double(3)]]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(value.serialized() == String(decoding: try encoder.encode(value), as: UTF8.self))
        #expect(try JSON.parse(Array(value.serialized().utf8)).serialized() == value.serialized())
    }

    @Test(arguments: ["", " ", "\t a@b.c \t", "\u{A0}x\u{3000}", "a b", "\nx\n", " \u{2003}é ", "plain"])
    func trimmingSpacesAgreesWithFoundation(_ text: String) {
        #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces))
        #expect(text.dropFirst(0).trimmingSpaces() == text.trimmingCharacters(in: .whitespaces))
    }

    @Test func base64URLMatchesFoundationAtEveryLength() {
        let generator = Generator(seed: 11)
        for length in 0...40 {
            let bytes = generator.bytes(length)
            let foundation = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == foundation)
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }
}
