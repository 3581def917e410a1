import Foundation
import Testing
import AuthCore

@Suite("SAML toolkit: raw DEFLATE")
struct SAMLDeflateTests {
    /// An AuthnRequest as the HTTP-Redirect binding carries it; the vectors below were compressed by
    /// Python's zlib (`compressobj(level, DEFLATED, -15)`).
    static let request = #"<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a1b2c3" Version="2.0" IssueInstant="2026-01-01T00:00:00Z" Destination="https://idp.example.org/sso" AssertionConsumerServiceURL="https://sp.example.org/acs" ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"><saml:Issuer>https://sp.example.org/metadata</saml:Issuer><samlp:NameIDPolicy Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress" AllowCreate="true"/></samlp:AuthnRequest>"#

    static let zlibVectors: [(name: String, compressed: String, plain: String)] = [
        // Z_FIXED strategy: one fixed-Huffman block with a back-reference.
        ("fixed", "y0jNyclXyEAigx19fQA=", "hello hello hello SAML"),
        // Level 9 on the request: one dynamic-Huffman block.
        ("dynamic", "fVHLTsNADPyVaO/No0gcVkmk0ApRqUDUBg5ckJuYdqV9hLUD5e9ZUhDtoZV8Gs9oPJ6cwOheVgPv7ArfBySO9kZbkuOiEIO30gEpkhYMkuRWrqv7pZzGqey9Y9c6LY4klxVAhJ6VsyJazAvxCtlm2l6J6Bk9BbQQgRRWRAMuLDFYDlA6vZ6kWZgmTeU4LyKah0uVBR5VO+aeZJKoro9xD6bXGDu/TYiciKo/z5mzNBj0a/QfqsWn1fJfSadCaElE9W+8G2U7ZbeXk20OJJJ3TVNP6sd1I8r85yFyTOPLM04GGTpgyJNjcn6o5SHYLOa106r9im6dN8Dnr8jibERUN3kbqRINKF11nUcKcSqt3efMIzAWgv2AIikPrqf9l98=", request),
        // Level 0: a stored block.
        ("stored", "ARYA6f9oZWxsbyBoZWxsbyBoZWxsbyBTQU1M", "hello hello hello SAML"),
        // Three copies of the request with a Z_FULL_FLUSH after 300 bytes: dynamic, empty stored, dynamic.
        ("multiBlock", "fI9BSwMxEIX/Spi7u+kKHgb3sLaXQgVp1YMXienQBjaTmJlIf75hUdSL8E7vzcd7cysuzhmnqmfe03slUXOJMwsuwQi1MCYnQZBdJEH1eJjudzh0FnNJmnya4RfyP+FEqGhIDGa7GeHVrd4Gfw3mmYo0d4R21CKRSlsWdazNssPNlV01PVqLi17AbNrSwE4X6qyaBfs+HHNHFxfzTF0qp14kgZm+O9eJpUYqByofwdPTfvdDyl/QeQHz8PXeXeBj4NP4CQAA///tkttKw0AQhl8l7H1zErxYmkJsEANVQxu96I1Mk7Fd2EPc2Wh9e7epxSq0DyCFuZqZn3/mm2G91dwACeIaFBJ3DV/k9zOehjFfCd0KvSZ+V9fVqHpc1GwyJlCSl0Q92snGuY54FFEX4hZUJzE0dh0pdNCCg3F03DwoO/7gbcqiMlI0n8GtsQpcxk5NkYTJkBHt6HVo5ahAyLxtLRKxIJfSfEwtgsOMOdsjiyZ7147nvdvoOb71SO5gfpwLtkpq4kPh9AQ7Dp01zjRGsiPJeQUQoXXCaBaURcZeIFmlzRULntGSz2bMN/nSDkypyYH2DNI4vR7FiY86jvkQSxYUflKhwQ2qA2/R/gZOZDyLg+fUaOoV2gXad9Hg03z2o/xzKWg8xOp7vZv9uc9vdvmJy0/845/4Ag==",
         request + request + request),
    ]

    @Test func inflatesWhatZlibDeflated() throws {
        for vector in Self.zlibVectors {
            let compressed = try #require(Data(base64Encoded: vector.compressed))
            let plain = try Deflate.decompress(Array(compressed), limit: 1 << 20)
            #expect(String(decoding: plain, as: UTF8.self) == vector.plain, "\(vector.name)")
        }
    }

    @Test(arguments: [0, 1, 3, 100, 5_000, 100_000])
    func roundTrips(_ size: Int) throws {
        // Text with repeats (matches) and a pseudo-random tail (literals), deterministic.
        var state: UInt32 = 12_345
        let text = Array(Self.request.utf8)
        let bytes = (0..<size).map { index -> UInt8 in
            state = state &* 1_103_515_245 &+ 12_345
            return index % 1_000 < 600 ? text[index % 300] : UInt8(truncatingIfNeeded: state >> 16)
        }
        let compressed = Deflate.compress(bytes)
        #expect(try Deflate.decompress(compressed, limit: size) == bytes)
    }

    @Test func compressesRepetitiveText() throws {
        let request = Array(Self.request.utf8)
        #expect(Deflate.compress(request).count < request.count * 2 / 3)
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        #expect(Deflate.compress(zeros).count < 10_000)
    }

    /// A megabyte of zeros deflates to a few kilobytes; inflating it stops at the limit.
    @Test func stopsAtTheLimit() throws {
        let bomb = Deflate.compress([UInt8](repeating: 0, count: 1 << 20))
        #expect(throws: DeflateError.self) { try Deflate.decompress(bomb, limit: 64 * 1024) }
        let stored = try #require(Data(base64Encoded: "ARYA6f9oZWxsbyBoZWxsbyBoZWxsbyBTQU1M"))
        #expect(throws: DeflateError.self) { try Deflate.decompress(Array(stored), limit: 21) }
    }

    @Test func refusesGarbageWithoutCrashing() throws {
        #expect(throws: DeflateError(message: "invalid block type 3")) { try Deflate.decompress([0x07], limit: 100) }
        #expect(throws: DeflateError.self) { try Deflate.decompress([], limit: 100) }
        // A stored block whose length and complement disagree.
        #expect(throws: DeflateError.self) { try Deflate.decompress([0x01, 0x05, 0x00, 0x00, 0x00], limit: 100) }
        let valid = Array(try #require(Data(base64Encoded: Self.zlibVectors[1].compressed)))
        for length in 0..<valid.count { _ = try? Deflate.decompress(Array(valid[..<length]), limit: 4_096) }
        var state: UInt32 = 99
        for _ in 0..<2_000 {
            let garbage = (0..<64).map { _ -> UInt8 in
                state = state &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: state >> 24)
            }
            _ = try? Deflate.decompress(garbage, limit: 4_096)
        }
    }
}
