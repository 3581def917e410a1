import Foundation

/// Just enough DER to read a certificate: definite-length TLVs with one-byte tags, bounds-checked, so
/// a hostile certificate can only be refused, never read past its end.
struct DERReader {
    /// One TLV: its tag, its content and the whole encoding (tag and length included).
    struct Item {
        var tag: UInt8
        var content: ArraySlice<UInt8>
        var encoded: ArraySlice<UInt8>
    }

    let bytes: ArraySlice<UInt8>
    private(set) var offset: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        offset = bytes.startIndex
    }

    var atEnd: Bool { offset >= bytes.endIndex }

    mutating func read() -> Item? {
        let start = offset
        guard offset + 2 <= bytes.endIndex else { return nil }
        let tag = bytes[offset]
        // High tag numbers (0x1F) never appear in the parts of a certificate read here.
        guard tag & 0x1F != 0x1F else { return nil }
        var length = Int(bytes[offset + 1])
        offset += 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            // 0x80 is BER's indefinite length, which DER forbids; four bytes are plenty for a certificate.
            guard count >= 1, count <= 4, offset + count <= bytes.endIndex else { return nil }
            length = 0
            for byte in bytes[offset..<offset + count] { length = length << 8 | Int(byte) }
            offset += count
        }
        guard length <= bytes.endIndex - offset else { return nil }
        let content = bytes[offset..<offset + length]
        offset += length
        return Item(tag: tag, content: content, encoded: bytes[start..<offset])
    }

    /// The next item, if it has `tag`.
    mutating func read(tag: UInt8) -> Item? {
        var copy = self
        guard let item = copy.read(), item.tag == tag else { return nil }
        self = copy
        return item
    }
}
