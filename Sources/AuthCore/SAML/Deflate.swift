import Foundation

/// Raw DEFLATE (RFC 1951: no zlib or gzip wrapper), as the SAML HTTP-Redirect binding carries messages.
///
/// `compress` makes one fixed-Huffman block with greedy LZ77 matches: not zlib's ratio, but SAML
/// messages are repetitive enough that it roughly halves them, which is what keeps a redirect URL short.
/// `decompress` reads all three block types and stops at a size limit, so a small input cannot expand
/// into gigabytes.
public enum Deflate {
    /// `bytes` as a raw DEFLATE stream.
    public static func compress(_ bytes: [UInt8]) -> [UInt8] {
        var writer = BitWriter()
        writer.write(1, bits: 1)  // BFINAL: the only block
        writer.write(1, bits: 2)  // BTYPE 01: fixed Huffman codes
        var matcher = MatchFinder(bytes)
        var position = 0
        while position < bytes.count {
            if let (length, distance) = matcher.longestMatch(at: position) {
                writer.writeLength(length)
                writer.writeDistance(distance)
                for skipped in position..<position + length { matcher.insert(skipped) }
                position += length
            } else {
                writer.writeLiteral(Int(bytes[position]))
                matcher.insert(position)
                position += 1
            }
        }
        writer.writeLiteral(256)  // end of block
        return writer.finish()
    }

    /// Length codes 257…285: base length and extra bits (RFC 1951 §3.2.5).
    static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    /// Distance codes 0…29.
    static let distanceBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
                                      6145, 8193, 12289, 16385, 24577]
    static let distanceExtra: [Int] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
}

/// Why bytes are not a raw DEFLATE stream, or inflate past the limit.
public struct DeflateError: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { "DEFLATE: \(message)" }
}

/// Greedy LZ77 over a 32 KiB window: the last position of each 3-byte hash, chained to earlier ones.
private struct MatchFinder {
    static let window = 32_768
    static let maximumLength = 258
    static let maximumProbes = 64

    let bytes: [UInt8]
    var head = [Int](repeating: -1, count: 1 << 15)
    var previous = [Int](repeating: -1, count: window)

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func hash(_ position: Int) -> Int {
        (Int(bytes[position]) << 10 ^ Int(bytes[position + 1]) << 5 ^ Int(bytes[position + 2])) & 0x7FFF
    }

    mutating func insert(_ position: Int) {
        guard position + 3 <= bytes.count else { return }
        let key = hash(position)
        previous[position % Self.window] = head[key]
        head[key] = position
    }

    /// The longest earlier match of at least 3 bytes at `position`, as (length, distance).
    func longestMatch(at position: Int) -> (Int, Int)? {
        guard position + 3 <= bytes.count else { return nil }
        let limit = min(Self.maximumLength, bytes.count - position)
        var candidate = head[hash(position)]
        var best: (Int, Int)?
        var probes = 0
        while candidate >= 0, position - candidate <= Self.window, probes < Self.maximumProbes {
            var length = 0
            while length < limit, bytes[candidate + length] == bytes[position + length] { length += 1 }
            if length >= 3, length > (best?.0 ?? 0) {
                best = (length, position - candidate)
                if length == limit { break }
            }
            let next = previous[candidate % Self.window]
            // A slot reused by a newer position would point forward; the chain ends there.
            guard next < candidate else { break }
            candidate = next
            probes += 1
        }
        return best
    }
}

/// Bits packed least significant first; Huffman codes go most significant bit first (§3.1.1).
private struct BitWriter {
    var out: [UInt8] = []
    var buffer: UInt32 = 0
    var count = 0

    mutating func write(_ value: Int, bits: Int) {
        buffer |= UInt32(value) << UInt32(count)
        count += bits
        while count >= 8 {
            out.append(UInt8(buffer & 0xFF))
            buffer >>= 8
            count -= 8
        }
    }

    mutating func writeCode(_ code: Int, length: Int) {
        var reversed = 0
        for bit in 0..<length where code & (1 << bit) != 0 { reversed |= 1 << (length - 1 - bit) }
        write(reversed, bits: length)
    }

    /// A literal/length symbol in the fixed code (§3.2.6).
    mutating func writeLiteral(_ symbol: Int) {
        switch symbol {
        case 0...143: writeCode(0x30 + symbol, length: 8)
        case 144...255: writeCode(0x190 + symbol - 144, length: 9)
        case 256...279: writeCode(symbol - 256, length: 7)
        default: writeCode(0xC0 + symbol - 280, length: 8)
        }
    }

    mutating func writeLength(_ length: Int) {
        // The last base not above `length`: 258 takes code 285, as it must.
        let index = Deflate.lengthBase.lastIndex { $0 <= length } ?? 0
        writeLiteral(257 + index)
        write(length - Deflate.lengthBase[index], bits: Deflate.lengthExtra[index])
    }

    mutating func writeDistance(_ distance: Int) {
        let index = Deflate.distanceBase.lastIndex { $0 <= distance } ?? 0
        writeCode(index, length: 5)
        write(distance - Deflate.distanceBase[index], bits: Deflate.distanceExtra[index])
    }

    mutating func finish() -> [UInt8] {
        if count > 0 { out.append(UInt8(buffer & 0xFF)) }
        return out
    }
}
