import CModArith
import CSystemCrypto
import Foundation

/// A non-negative integer below SRP's 3072-bit modulus, as 48 little-endian 64-bit limbs, with the
/// modular operations SRP needs. Exponentiation and multiplication run in C (Montgomery form): in Swift,
/// a debug build took about a second per exponentiation, and every SRP step needs several.
struct SRPNumber: Equatable, Sendable {
    static let limbs = 48
    var words: [UInt64]

    init(words: [UInt64]) {
        self.words = words + Array(repeating: 0, count: max(0, Self.limbs - words.count))
    }

    init(_ value: UInt64) { self.init(words: [value]) }

    /// Hexadecimal, either case, leading zeros allowed; nil for anything else or a number of more than
    /// 3072 bits.
    init?(hex: String) {
        let digits = hex.drop { $0 == "0" }
        guard !hex.isEmpty, digits.count <= Self.limbs * 16, digits.allSatisfy(\.isHexDigit) else { return nil }
        var words: [UInt64] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = digits.index(end, offsetBy: -16, limitedBy: digits.startIndex) ?? digits.startIndex
            words.append(UInt64(digits[start..<end], radix: 16) ?? 0)
            end = start
        }
        self.init(words: words)
    }

    /// Big-endian bytes (a hash), at most 384 of them.
    init(bytes: some Collection<UInt8>) {
        var words: [UInt64] = []
        var word: UInt64 = 0, shift: UInt64 = 0
        for byte in bytes.reversed().prefix(Self.limbs * 8) {
            word |= UInt64(byte) << shift
            shift += 8
            if shift == 64 { words.append(word); word = 0; shift = 0 }
        }
        if shift > 0 { words.append(word) }
        self.init(words: words)
    }

    /// Lowercase hex without leading zeros ("0" for zero).
    var hex: String {
        guard let top = words.lastIndex(where: { $0 != 0 }) else { return "0" }
        var text = String(words[top], radix: 16)
        for word in words[..<top].reversed() {
            let part = String(word, radix: 16)
            text += String(repeating: "0", count: 16 - part.count) + part
        }
        return text
    }

    var isZero: Bool { words.allSatisfy { $0 == 0 } }

    static func < (a: SRPNumber, b: SRPNumber) -> Bool {
        for i in stride(from: limbs - 1, through: 0, by: -1) where a.words[i] != b.words[i] { return a.words[i] < b.words[i] }
        return false
    }

    /// self^exponent mod `modulus` (odd, as SRP's prime): through the system's OpenSSL when it loads, whose
    /// assembly takes about half the portable C's time; the portable C otherwise.
    func power(_ exponent: SRPNumber, modulus: SRPNumber) -> SRPNumber {
        var result = [UInt64](repeating: 0, count: Self.limbs)
        guard fauxth_mod_exp(&result, words, exponent.words, modulus.words, Self.limbs) == 1 else {
            return portablePower(exponent, modulus: modulus)
        }
        return SRPNumber(words: result)
    }

    /// self^exponent mod `modulus` in this package's own C (CModArith).
    func portablePower(_ exponent: SRPNumber, modulus: SRPNumber) -> SRPNumber {
        var result = [UInt64](repeating: 0, count: Self.limbs)
        modarith_exp(&result, words, exponent.words, Self.limbs, modulus.words, Self.limbs)
        return SRPNumber(words: result)
    }

    /// self · other mod `modulus`.
    func times(_ other: SRPNumber, modulus: SRPNumber) -> SRPNumber {
        var result = [UInt64](repeating: 0, count: Self.limbs)
        modarith_mul(&result, words, other.words, modulus.words, Self.limbs)
        return SRPNumber(words: result)
    }

    /// self + other mod `modulus`, both below it.
    func plus(_ other: SRPNumber, modulus: SRPNumber) -> SRPNumber {
        var sum = words, carry: UInt64 = 0
        for i in 0..<Self.limbs {
            let (partial, overflow1) = words[i].addingReportingOverflow(other.words[i])
            let (total, overflow2) = partial.addingReportingOverflow(carry)
            sum[i] = total
            carry = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
        var result = SRPNumber(words: sum)
        if carry > 0 || !(result < modulus) { result = result.minus(modulus) }
        return result
    }

    /// self − other mod `modulus`, both below it.
    func minus(_ other: SRPNumber, modulus: SRPNumber) -> SRPNumber {
        self < other ? plus(modulus.minus(other), modulus: modulus) : minus(other)
    }

    /// self − other, wrapping below zero (callers keep it from doing so, or want the wrap).
    private func minus(_ other: SRPNumber) -> SRPNumber {
        var difference = words, borrow: UInt64 = 0
        for i in 0..<Self.limbs {
            let (partial, underflow1) = words[i].subtractingReportingOverflow(other.words[i])
            let (total, underflow2) = partial.subtractingReportingOverflow(borrow)
            difference[i] = total
            borrow = (underflow1 ? 1 : 0) + (underflow2 ? 1 : 0)
        }
        return SRPNumber(words: difference)
    }
}
