import Crypto
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
        // From a string's own bytes (a row's JSON column), small strings and non-ASCII ones alike.
        for text in ["[]", "{\"a\":1}", #"{"méthode":"é😀","n":[1,2]}"#, String(repeating: " ", count: 40) + "true"] {
            #expect(try JSON.parse(text: text) == parse(text))
        }
        #expect(throws: JSONSyntaxError.self) { try JSON.parse(text: "{") }
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

    /// The writer finds what to escape eight bytes at a time: every byte JSON escapes, and bytes beside them that it
    /// does not (0x1F/0x20, 0x21/0x23, 0x5B/0x5D, UTF-8 above 0x80), at each offset of strings longer than a word.
    @Test func escapesEveryByteAtEveryOffset() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let specials: [String] = ["\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{0}", "\u{1F}", " ", "!", "#", "[", "]", "é", "\u{7F}", "😀"]
        for special in specials {
            for length in 0...17 {
                for offset in 0...length {
                    var text = String(repeating: "a", count: length)
                    text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: offset))
                    let value: JSON = [text: .string(text)]
                    #expect(value.serialized() == String(decoding: try encoder.encode(value), as: UTF8.self), "\(special.debugDescription) at \(offset) of \(length)")
                    #expect(value.serializedBytes() == Array(value.serialized().utf8))
                }
            }
        }
    }

    @Test(arguments: [0, 7, -7, 10, -10, 1_795_932_273, Int.max, Int.min, Int.min + 1])
    func writesIntegersAsDecimal(_ number: Int) {
        #expect(JSON.int(number).serialized() == String(number))
        #expect(JSON.array([.int(number), .int(number)]).serialized() == "[\(number),\(number)]")
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
            // Appended after what a buffer holds, as a token's parts are.
            var buffer = Array("head.".utf8)
            Base64URL.encode(bytes, into: &buffer)
            #expect(String(decoding: buffer, as: UTF8.self) == "head." + foundation)
            Base64URL.encode(bytes.lazy.map { $0 }, into: &buffer)
            #expect(String(decoding: buffer, as: UTF8.self) == "head." + foundation + foundation)
        }
    }

    /// A token is written into one buffer; it is the parts as RFC 7515 joins them, for each kind of key.
    @Test func signsTheJoinedParts() throws {
        let claims: JSON = ["sub": "u1", "n": 5, "s": "q\"/"]
        let payload = Base64URL.encode(claims.serialized().utf8)
        let hmacKey = SigningKey(.hmac(.init(data: Array("a secret of some length".utf8))), kid: "k1")
        for key in [SigningKey(.none, kid: nil), hmacKey] {
            let token = try JWS.sign(claims.objectValue!, with: key)
            let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            #expect(parts.count == 3)
            #expect(parts[1] == payload)
            let input = Array("\(parts[0]).\(parts[1])".utf8)
            #expect(Base64URL.decode(parts[2]) == (try key.sign(input)))
            #expect(try JWS.verify(token, keys: [key.verificationKey], allowNone: true).claims == claims.objectValue!)
        }
        // The HMAC state kept from the key gives each signature afresh: two inputs, two independent MACs.
        let first = try hmacKey.sign(Array("one".utf8)), second = try hmacKey.sign(Array("two".utf8))
        let secret = SymmetricKey(data: Array("a secret of some length".utf8))
        #expect(first == Array(HMAC<SHA256>.authenticationCode(for: Array("one".utf8), using: secret)))
        #expect(second == Array(HMAC<SHA256>.authenticationCode(for: Array("two".utf8), using: secret)))
    }
}

/// One shape, two sinks: the writer's text is the builder's object serialized, members and nesting alike.
@Suite struct JSONObjectSinkTests {
    /// A shape with every kind of member: plain, optional, a nested object, arrays of objects (one empty), free-form JSON.
    func shape<Sink: JSONObjectSink>(_ o: inout Sink, optional: String?) {
        o.member("a", ["z": 1, "y": [true, nil]])
        o.member("b", ifPresent: optional.map(JSON.string))
        o.objects("c", [1, 2]) { item, n in
            item.member("n", .int(n))
            item.object("o") { $0.member("q\"", "x/y\n") }
        }
        o.objects("d", [Int]()) { _, _ in }
        o.object("e") { _ in }
        o.member("é", .double(2.5))
    }

    @Test func theWriterWritesWhatTheBuilderSerializes() {
        for optional in ["here", nil] {
            let built = JSONObjectBuilder.object { shape(&$0, optional: optional) }
            let written = JSONObjectWriter.bytes(capacity: 8) { shape(&$0, optional: optional) }
            #expect(written == built.serializedBytes())
            #expect((try? JSON.parse(written)) == built)
        }
        #expect(JSONObjectWriter.bytes { _ in } == Array("{}".utf8))
    }
}
