import Foundation

// The symbol: function patterns, data placement, masks and the penalty rules (ISO/IEC 18004 §7.7–7.9).

// MARK: - Symbol layout

/// The module grid being built, with which modules belong to function patterns (finders, timing,
/// alignment, format and version information) and so carry no data and are never masked.
struct QRMatrix {
    let version: Int
    let size: Int
    var dark: [[Bool]]
    var reserved: [[Bool]]
    var mask = 0

    /// A symbol with every function pattern drawn and the format area reserved (filled in per mask).
    init(version: Int) {
        self.version = version
        size = 17 + 4 * version
        dark = Array(repeating: Array(repeating: false, count: size), count: size)
        reserved = dark
        drawTimingPatterns()
        drawFinderPatterns()
        drawAlignmentPatterns()
        drawFormatInformation(0)
        drawVersionInformation()
    }

    /// Sets a function module, which data placement and masking then leave alone.
    private mutating func setFunction(row: Int, column: Int, _ isDark: Bool) {
        dark[row][column] = isDark
        reserved[row][column] = true
    }

    /// Alternating modules along row 6 and column 6, which let a reader find the module pitch.
    private mutating func drawTimingPatterns() {
        for i in 0..<size {
            setFunction(row: 6, column: i, i % 2 == 0)
            setFunction(row: i, column: 6, i % 2 == 0)
        }
    }

    /// The three 7×7 finders in the corners other than bottom right, with their light separators.
    private mutating func drawFinderPatterns() {
        for (row, column) in [(3, 3), (3, size - 4), (size - 4, 3)] {
            for dy in -4...4 {
                for dx in -4...4 where (0..<size).contains(row + dy) && (0..<size).contains(column + dx) {
                    let ring = max(abs(dx), abs(dy))
                    setFunction(row: row + dy, column: column + dx, ring != 2 && ring != 4)
                }
            }
        }
    }

    /// 5×5 alignment patterns at every pair of the version's centre coordinates, except the three
    /// that would land on a finder.
    private mutating func drawAlignmentPatterns() {
        let centres = Self.alignmentCentres(version: version, size: size)
        guard let last = centres.last else { return }
        for row in centres {
            for column in centres where !(row == 6 && (column == 6 || column == last)) && !(row == last && column == 6) {
                for dy in -2...2 {
                    for dx in -2...2 { setFunction(row: row + dy, column: column + dx, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
    }

    /// Alignment centre coordinates (ISO/IEC 18004 Annex E): 6, then evenly spaced steps (rounded up to
    /// even, with version 32 the one exception) back from the far edge.
    static func alignmentCentres(version: Int, size: Int) -> [Int] {
        guard version > 1 else { return [] }
        let count = version / 7 + 2
        let step = version == 32 ? 26 : (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        return [6] + (0..<count - 1).map { size - 7 - step * $0 }.reversed()
    }

    /// The 15 format bits (level and mask, BCH(15,5)-protected, XORed with 0x5412 so they are never all
    /// light) in both copies, plus the always-dark module beside the bottom-left finder.
    mutating func drawFormatInformation(_ data: Int) {
        let bits = Self.bch(data, generator: 0x537, degree: 10) ^ 0x5412
        let bit = { (i: Int) in (bits >> i) & 1 == 1 }
        for i in 0..<6 { setFunction(row: i, column: 8, bit(i)) }
        setFunction(row: 7, column: 8, bit(6))
        setFunction(row: 8, column: 8, bit(7))
        setFunction(row: 8, column: 7, bit(8))
        for i in 9..<15 { setFunction(row: 8, column: 14 - i, bit(i)) }
        for i in 0..<8 { setFunction(row: 8, column: size - 1 - i, bit(i)) }
        for i in 8..<15 { setFunction(row: size - 15 + i, column: 8, bit(i)) }
        setFunction(row: size - 8, column: 8, true)
    }

    /// The 18 version bits (BCH(18,6)) in the two 6×3 blocks beside the top-right and bottom-left
    /// finders; only versions 7 and up carry them.
    private mutating func drawVersionInformation() {
        guard version >= 7 else { return }
        let bits = Self.bch(version, generator: 0x1F25, degree: 12)
        for i in 0..<18 {
            let isDark = (bits >> i) & 1 == 1
            setFunction(row: i / 3, column: size - 11 + i % 3, isDark)
            setFunction(row: size - 11 + i % 3, column: i / 3, isDark)
        }
    }

    /// `data` followed by the remainder of data · x^degree divided by `generator` over GF(2).
    static func bch(_ data: Int, generator: Int, degree: Int) -> Int {
        var remainder = data << degree
        for shift in stride(from: degree, through: 0, by: -1) where remainder >> (shift + degree) & 1 == 1 {
            remainder ^= generator << shift
        }
        return data << degree | remainder
    }

    /// Writes the codewords' bits into the free modules, in two-column strips from the right edge,
    /// alternately upwards and downwards, skipping the vertical timing column; modules left over are
    /// remainder bits and stay light (before masking).
    mutating func place(_ codewords: [UInt8]) {
        var bitIndex = 0
        for (row, column) in dataModuleOrder() where !reserved[row][column] {
            if bitIndex < codewords.count * 8 {
                dark[row][column] = (codewords[bitIndex / 8] >> UInt8(7 - bitIndex % 8)) & 1 == 1
            }
            bitIndex += 1
        }
    }

    /// Every (row, column) in zigzag placement order, function modules included.
    private func dataModuleOrder() -> [(Int, Int)] {
        var order: [(Int, Int)] = []
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for vertical in 0..<size {
                let row = upward ? size - 1 - vertical : vertical
                order.append((row, right))
                order.append((row, right - 1))
            }
            right -= 2
        }
        return order
    }

    /// This symbol with mask pattern `mask` applied to the data modules and its format bits written.
    func masked(_ mask: Int, correction: QRCode.ErrorCorrection) -> QRMatrix {
        var result = self
        result.mask = mask
        for row in 0..<size {
            for column in 0..<size where !reserved[row][column] && Self.maskInverts(mask, row: row, column: column) {
                result.dark[row][column].toggle()
            }
        }
        result.drawFormatInformation(correction.formatBits << 3 | mask)
        return result
    }

    /// The eight mask conditions (ISO/IEC 18004 Table 10): where true, a data module is inverted.
    static func maskInverts(_ mask: Int, row i: Int, column j: Int) -> Bool {
        switch mask {
        case 0: (i + j) % 2 == 0
        case 1: i % 2 == 0
        case 2: j % 3 == 0
        case 3: (i + j) % 3 == 0
        case 4: (i / 2 + j / 3) % 2 == 0
        case 5: (i * j) % 2 + (i * j) % 3 == 0
        case 6: ((i * j) % 2 + (i * j) % 3) % 2 == 0
        default: ((i + j) % 2 + (i * j) % 3) % 2 == 0
        }
    }

    /// The masked symbol with the lowest penalty; the lowest-numbered mask wins a tie.
    func bestMasked(correction: QRCode.ErrorCorrection) -> QRMatrix {
        let candidates = (0..<8).map { masked($0, correction: correction) }
        let scores = candidates.map { QRPenalty.score($0.dark) }
        return candidates[scores.firstIndex(of: scores.min() ?? 0) ?? 0]
    }
}

// MARK: - Mask evaluation

/// The penalty rules of ISO/IEC 18004 §7.8.3, scored on the complete symbol (format and version
/// information included): a lower score means fewer features that could confuse a reader. Encoders
/// that score with the format area still blank (python-qrcode does) sometimes pick another mask.
enum QRPenalty {
    /// N1 + N2 + N3 + N4 for a square grid.
    static func score(_ grid: [[Bool]]) -> Int {
        let lines = grid + transposed(grid)
        return lines.reduce(0) { $0 + runs($1) + finderLike($1) } + boxes(grid) + balance(grid)
    }

    /// N1: each run of five or more same-coloured modules in a line costs 3, plus 1 per extra module.
    static func runs(_ line: [Bool]) -> Int {
        var total = 0
        var start = 0
        for end in 1...line.count where end == line.count || line[end] != line[start] {
            if end - start >= 5 { total += end - start - 2 }
            start = end
        }
        return total
    }

    /// N2: each 2×2 block of one colour costs 3 (overlapping blocks all count).
    static func boxes(_ grid: [[Bool]]) -> Int {
        var total = 0
        for row in 0..<grid.count - 1 {
            for column in 0..<grid.count - 1 {
                let colour = grid[row][column]
                if grid[row][column + 1] == colour && grid[row + 1][column] == colour && grid[row + 1][column + 1] == colour {
                    total += 3
                }
            }
        }
        return total
    }

    /// N3: each 1:1:3:1:1 finder-like pattern with four light modules before or after it, within the
    /// symbol, costs 40; each 11-module window matching either orientation counts once.
    static func finderLike(_ line: [Bool]) -> Int {
        guard line.count >= finderPattern.count else { return 0 }
        let reversed = Array(finderPattern.reversed())
        var total = 0
        for start in 0...line.count - finderPattern.count
        where matches(line, at: start, finderPattern) || matches(line, at: start, reversed) {
            total += 40
        }
        return total
    }

    /// A finder's 1:1:3:1:1 core followed by four light modules.
    private static let finderPattern = [true, false, true, true, true, false, true, false, false, false, false]

    /// Whether `line` holds `pattern` at `start`; stops at the first difference, which is almost always
    /// within the first module or two, so the scan over every window stays cheap.
    private static func matches(_ line: [Bool], at start: Int, _ pattern: [Bool]) -> Bool {
        for i in pattern.indices where line[start + i] != pattern[i] { return false }
        return true
    }

    /// N4: 10 for each full 5% the proportion of dark modules departs from one half.
    static func balance(_ grid: [[Bool]]) -> Int {
        let total = grid.count * grid.count
        let darkCount = grid.reduce(0) { $0 + $1.filter { $0 }.count }
        return abs(darkCount * 20 - total * 10) / total * 10
    }

    /// Columns as rows, so the line rules apply to both directions.
    private static func transposed(_ grid: [[Bool]]) -> [[Bool]] {
        grid.indices.map { column in grid.map { $0[column] } }
    }
}
