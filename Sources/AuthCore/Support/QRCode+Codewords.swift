import Foundation

// Codewords: byte-mode bits, Reed-Solomon error correction and the block structure (ISO/IEC 18004 §7.4–7.6).

// MARK: - Capacity and block structure

/// How one version's codewords split into Reed-Solomon blocks at one correction level
/// (ISO/IEC 18004 Table 9): every block gets the same number of EC codewords; the data is spread so the
/// later blocks hold one data codeword more than the earlier ones when it does not divide evenly.
struct QRBlockLayout {
    let ecPerBlock: Int
    let blockCount: Int
    let totalCodewords: Int

    init(version: Int, correction: QRCode.ErrorCorrection) {
        ecPerBlock = Self.ecCodewordsPerBlock[correction.index][version]
        blockCount = Self.blockCounts[correction.index][version]
        totalCodewords = Self.rawDataModules(version: version) / 8
    }

    /// Codewords left for data once the EC codewords are taken out.
    var dataCodewords: Int { totalCodewords - ecPerBlock * blockCount }

    /// The smallest version whose data capacity holds a byte-mode segment of `count` bytes, or nil.
    static func smallestVersion(forBytes count: Int, correction: QRCode.ErrorCorrection) -> Int? {
        (1...40).first { version in
            let needed = 4 + QRBits.countBits(version: version) + 8 * count
            return needed <= QRBlockLayout(version: version, correction: correction).dataCodewords * 8
        }
    }

    /// Modules left for codewords (and remainder bits) once every function pattern and the format and
    /// version information are drawn; the closed form avoids drawing a symbol just to count.
    static func rawDataModules(version: Int) -> Int {
        var result = (16 * version + 128) * version + 64
        if version >= 2 {
            let alignments = version / 7 + 2
            result -= (25 * alignments - 10) * alignments - 55
            if version >= 7 { result -= 36 }
        }
        return result
    }

    /// Splits `data` into blocks, appends each block's EC codewords, and interleaves: first the data
    /// codewords column by column across blocks, then the EC codewords the same way, so a burst of
    /// damage on the symbol spreads over many blocks.
    func interleaved(_ data: [UInt8]) -> [UInt8] {
        let blocks = splitIntoBlocks(data)
        let generator = ReedSolomon.generator(degree: ecPerBlock)
        let ec = blocks.map { ReedSolomon.remainder(of: $0, generator: generator) }
        return Self.columns(of: blocks) + Self.columns(of: ec)
    }

    /// The data blocks, short ones first.
    private func splitIntoBlocks(_ data: [UInt8]) -> [[UInt8]] {
        let shortLength = dataCodewords / blockCount
        let shortBlocks = blockCount - dataCodewords % blockCount
        var start = 0
        return (0..<blockCount).map { block in
            let length = shortLength + (block < shortBlocks ? 0 : 1)
            defer { start += length }
            return Array(data[start..<start + length])
        }
    }

    /// Reads blocks of possibly unequal length column by column, skipping blocks already exhausted.
    private static func columns(of blocks: [[UInt8]]) -> [UInt8] {
        let longest = blocks.map(\.count).max() ?? 0
        return (0..<longest).flatMap { i in blocks.compactMap { i < $0.count ? $0[i] : nil } }
    }

    /// EC codewords per block, by [level][version] (index 0 unused).
    static let ecCodewordsPerBlock: [[Int]] = [
        [0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        [0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]

    /// Number of EC blocks, by [level][version] (index 0 unused).
    static let blockCounts: [[Int]] = [
        [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        [0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        [0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]
}

// MARK: - Data bit stream

/// Builds the data codewords of a single byte-mode segment.
enum QRBits {
    /// Width of the character count field for byte mode, which grows once versions get large.
    static func countBits(version: Int) -> Int { version <= 9 ? 8 : 16 }

    /// Mode indicator, count, the bytes, then the terminator, zero bits to a byte boundary and the
    /// alternating 0xEC/0x11 pad codewords that fill the capacity (ISO/IEC 18004 §7.4.9-7.4.10).
    static func dataCodewords(_ bytes: [UInt8], version: Int, capacity: Int) -> [UInt8] {
        var bits: [Bool] = []
        append(0b0100, count: 4, to: &bits)
        append(bytes.count, count: countBits(version: version), to: &bits)
        for byte in bytes { append(Int(byte), count: 8, to: &bits) }
        append(0, count: min(4, capacity * 8 - bits.count), to: &bits)
        append(0, count: (8 - bits.count % 8) % 8, to: &bits)
        return padded(packed(bits), to: capacity)
    }

    /// Appends the low `count` bits of `value`, most significant first.
    private static func append(_ value: Int, count: Int, to bits: inout [Bool]) {
        for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
    }

    /// Big-endian bytes of a bit string whose length is a multiple of 8.
    private static func packed(_ bits: [Bool]) -> [UInt8] {
        stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<start + 8].reduce(UInt8(0)) { ($0 << 1) | ($1 ? 1 : 0) }
        }
    }

    /// Fills up to `capacity` with 0xEC, 0x11, 0xEC, ... after the real codewords.
    private static func padded(_ codewords: [UInt8], to capacity: Int) -> [UInt8] {
        let pads = (0..<max(0, capacity - codewords.count)).map { $0 % 2 == 0 ? UInt8(0xEC) : UInt8(0x11) }
        return codewords + pads
    }
}

// MARK: - Reed-Solomon

/// Reed-Solomon error correction over GF(256) with the QR field polynomial x^8+x^4+x^3+x^2+1 (0x11D).
enum ReedSolomon {
    /// Product in GF(256), by shift-and-add (Russian peasant) with reduction modulo 0x11D.
    static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var z = 0
        for bit in stride(from: 7, through: 0, by: -1) {
            z = (z << 1) ^ ((z >> 7) * 0x11D)
            z ^= Int((y >> UInt8(bit)) & 1) * Int(x)
        }
        return UInt8(z)
    }

    /// The generator (x - α^0)(x - α^1)...(x - α^(degree-1)), coefficients highest power first with
    /// the leading 1 omitted.
    static func generator(degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                result[j] = multiply(result[j], root)
                if j + 1 < degree { result[j] ^= result[j + 1] }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    /// The EC codewords: the remainder of data(x) · x^degree divided by the generator.
    static func remainder(of data: [UInt8], generator: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for i in result.indices { result[i] ^= multiply(generator[i], factor) }
        }
        return result
    }
}
