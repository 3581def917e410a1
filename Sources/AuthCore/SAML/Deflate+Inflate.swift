import Foundation

extension Deflate {
    /// Inflates a raw DEFLATE stream (stored, fixed and dynamic Huffman blocks), refusing output longer
    /// than `limit` bytes. Bytes after the final block are ignored. Any malformed input is an error,
    /// never a crash: every read is bounds-checked and every code validated (after zlib's `puff`).
    public static func decompress(_ bytes: [UInt8], limit: Int) throws(DeflateError) -> [UInt8] {
        var inflater = Inflater(input: bytes, limit: limit)
        var last = false
        while !last {
            last = try inflater.bits(1) == 1
            switch try inflater.bits(2) {
            case 0: try inflater.stored()
            case 1: try inflater.codes(Inflater.fixed.literals, Inflater.fixed.distances)
            case 2: try inflater.dynamic()
            default: throw DeflateError(message: "invalid block type 3")
            }
        }
        return inflater.out
    }
}

/// A canonical Huffman code as counts per length and symbols in code order.
private struct Huffman {
    var counts = [Int](repeating: 0, count: 16)
    var symbols: [Int]

    /// The code for `lengths`, and how many codes are left unused: 0 when complete, negative when
    /// over-subscribed (invalid), positive when incomplete.
    static func make(_ lengths: ArraySlice<Int>) -> (code: Huffman, left: Int) {
        var code = Huffman(symbols: [Int](repeating: 0, count: lengths.count))
        for length in lengths { code.counts[length] += 1 }
        if code.counts[0] == lengths.count { return (code, 0) }
        var left = 1
        for length in 1...15 {
            left <<= 1
            left -= code.counts[length]
            if left < 0 { return (code, left) }
        }
        var offsets = [Int](repeating: 0, count: 16)
        for length in 1..<15 { offsets[length + 1] = offsets[length] + code.counts[length] }
        for (symbol, length) in lengths.enumerated() where length != 0 {
            code.symbols[offsets[length]] = symbol
            offsets[length] += 1
        }
        return (code, left)
    }
}

private struct Inflater {
    let input: [UInt8]
    let limit: Int
    var position = 0
    var bitBuffer = 0
    var bitCount = 0
    var out: [UInt8] = []

    init(input: [UInt8], limit: Int) {
        self.input = input
        self.limit = limit
    }

    static let fixed: (literals: Huffman, distances: Huffman) = {
        var lengths = [Int](repeating: 8, count: 288)
        for symbol in 144..<256 { lengths[symbol] = 9 }
        for symbol in 256..<280 { lengths[symbol] = 7 }
        return (Huffman.make(lengths[...]).code, Huffman.make([Int](repeating: 5, count: 30)[...]).code)
    }()

    mutating func bits(_ count: Int) throws(DeflateError) -> Int {
        while bitCount < count {
            guard position < input.count else { throw DeflateError(message: "the stream ends early") }
            bitBuffer |= Int(input[position]) << bitCount
            position += 1
            bitCount += 8
        }
        let value = bitBuffer & ((1 << count) - 1)
        bitBuffer >>= count
        bitCount -= count
        return value
    }

    mutating func emit(_ byte: UInt8) throws(DeflateError) {
        guard out.count < limit else { throw DeflateError(message: "the inflated data exceeds \(limit) bytes") }
        out.append(byte)
    }

    /// A stored block: byte-aligned LEN, NLEN (its complement), then LEN bytes.
    mutating func stored() throws(DeflateError) {
        bitBuffer = 0
        bitCount = 0
        guard position + 4 <= input.count else { throw DeflateError(message: "the stream ends early") }
        let length = Int(input[position]) | Int(input[position + 1]) << 8
        let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
        position += 4
        guard length == ~complement & 0xFFFF else { throw DeflateError(message: "a stored block's length does not match its complement") }
        guard position + length <= input.count else { throw DeflateError(message: "the stream ends early") }
        guard out.count + length <= limit else { throw DeflateError(message: "the inflated data exceeds \(limit) bytes") }
        out += input[position..<position + length]
        position += length
    }

    mutating func decode(_ code: Huffman) throws(DeflateError) -> Int {
        var (value, first, index) = (0, 0, 0)
        for length in 1...15 {
            value |= try bits(1)
            let count = code.counts[length]
            if value - count < first { return code.symbols[index + value - first] }
            index += count
            first = (first + count) << 1
            value <<= 1
        }
        throw DeflateError(message: "invalid Huffman code")
    }

    /// Literals and length/distance pairs until the end-of-block symbol.
    mutating func codes(_ literals: Huffman, _ distances: Huffman) throws(DeflateError) {
        while true {
            var symbol = try decode(literals)
            if symbol < 256 {
                try emit(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            symbol -= 257
            guard symbol < Deflate.lengthBase.count else { throw DeflateError(message: "invalid length symbol") }
            let length = Deflate.lengthBase[symbol] + (try bits(Deflate.lengthExtra[symbol]))
            let distanceSymbol = try decode(distances)
            guard distanceSymbol < Deflate.distanceBase.count else { throw DeflateError(message: "invalid distance symbol") }
            let distance = Deflate.distanceBase[distanceSymbol] + (try bits(Deflate.distanceExtra[distanceSymbol]))
            guard distance <= out.count else { throw DeflateError(message: "a distance reaches before the start of the data") }
            for _ in 0..<length { try emit(out[out.count - distance]) }
        }
    }

    /// A block with its own codes, themselves Huffman-coded (§3.2.7).
    mutating func dynamic() throws(DeflateError) {
        let literalCount = try bits(5) + 257
        let distanceCount = try bits(5) + 1
        let codeLengthCount = try bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw DeflateError(message: "too many length or distance codes") }
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        var codeLengths = [Int](repeating: 0, count: 19)
        for index in 0..<codeLengthCount { codeLengths[order[index]] = try bits(3) }
        let (lengthCode, incomplete) = Huffman.make(codeLengths[...])
        guard incomplete == 0 else { throw DeflateError(message: "the code-length code is incomplete or over-subscribed") }

        var lengths = [Int](repeating: 0, count: literalCount + distanceCount)
        var index = 0
        while index < lengths.count {
            let symbol = try decode(lengthCode)
            if symbol < 16 {
                lengths[index] = symbol
                index += 1
                continue
            }
            var repeated = 0
            var times: Int
            switch symbol {
            case 16:
                guard index > 0 else { throw DeflateError(message: "a repeat has no previous length") }
                repeated = lengths[index - 1]
                times = 3 + (try bits(2))
            case 17: times = 3 + (try bits(3))
            default: times = 11 + (try bits(7))
            }
            guard index + times <= lengths.count else { throw DeflateError(message: "code lengths overrun their count") }
            for _ in 0..<times {
                lengths[index] = repeated
                index += 1
            }
        }
        guard lengths[256] != 0 else { throw DeflateError(message: "the block has no end-of-block code") }
        let literals = Huffman.make(lengths[..<literalCount])
        // An incomplete code is only allowed when it has a single symbol (zlib's rule).
        guard literals.left == 0 || (literals.left > 0 && literalCount - literals.code.counts[0] == 1) else {
            throw DeflateError(message: "the literal/length code is incomplete or over-subscribed")
        }
        let distances = Huffman.make(lengths[literalCount...])
        guard distances.left == 0 || (distances.left > 0 && distanceCount - distances.code.counts[0] == 1) else {
            throw DeflateError(message: "the distance code is incomplete or over-subscribed")
        }
        try codes(literals.code, distances.code)
    }
}
