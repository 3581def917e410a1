import Foundation
import Synchronization

/// The emulator's only source of randomness: ids, codes, salts, secrets and keys.
///
/// Random by default. Seeded (`--deterministic SEED`), every value of a run follows from the seed, so
/// two runs that make the same calls in the same order produce the same ids, codes and keys.
public final class Generator: Sendable {
    private let state: Locked<Source>

    private enum Source {
        case system(SystemWords)
        case seeded(Xoshiro256)

        mutating func next() -> UInt64 {
            switch self {
            case .system(var g): let word = g.next(); self = .system(g); return word
            case .seeded(var g): let word = g.next(); self = .seeded(g); return word
            }
        }

        /// A uniformly drawn offset in 0..<span (rejection sampling, no modulo bias).
        mutating func below(_ span: UInt64) -> UInt64 {
            let limit = UInt64.max - (UInt64.max % span)
            while true {
                let value = next()
                if value < limit { return value % span }
            }
        }
    }

    /// A generator backed by the system's cryptographic random source.
    public init() {
        state = Locked(.system(SystemWords()))
    }

    /// A reproducible generator: the same seed gives the same sequence.
    public init(seed: UInt64) {
        state = Locked(.seeded(Xoshiro256(seed: seed)))
    }

    /// Whether values are reproducible.
    public var isDeterministic: Bool {
        state.withLock { if case .seeded = $0 { true } else { false } }
    }

    /// `count` random bytes.
    public func bytes(_ count: Int) -> [UInt8] {
        state.withLock { source in
            var out = [UInt8]()
            out.reserveCapacity(count + 8)
            while out.count < count {
                withUnsafeBytes(of: source.next().littleEndian) { out.append(contentsOf: $0) }
            }
            return Array(out.prefix(count))
        }
    }

    /// A uniformly drawn integer in `range` (rejection sampling, no modulo bias).
    public func int(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(state.withLock { $0.below(span) })
    }

    /// A random version-4 UUID in lowercase canonical form.
    public func uuid() -> String {
        var b = bytes(16)
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: 36) { out in
            var at = 0
            for (index, byte) in b.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { out[at] = UInt8(ascii: "-"); at += 1 }
                out[at] = digits[Int(byte >> 4)]; out[at + 1] = digits[Int(byte & 0x0F)]; at += 2
            }
            return at
        }
    }

    /// A string of `count` characters drawn from `alphabet`.
    public func string(_ count: Int, alphabet: String) -> String {
        let bytes = Array(alphabet.utf8), ascii = bytes.allSatisfy { $0 < 0x80 }
        if ascii, bytes.count > 1, bytes.count.nonzeroBitCount == 1 {
            return string(count, powerOfTwoAlphabet: bytes)
        }
        // Every draw under one lock; the same words, in the same order, as `int(in:)` one at a time.
        if ascii {
            let picks = state.withLock { source in (0..<count).map { _ in bytes[Int(source.below(UInt64(bytes.count)))] } }
            return String(decoding: picks, as: UTF8.self)
        }
        let chars = Array(alphabet)
        return String(state.withLock { source in (0..<count).map { _ in chars[Int(source.below(UInt64(chars.count)))] } })
    }

    /// An alphabet of 2, 4, … 128 ASCII characters is drawn a few bits per character, as many characters from each
    /// word as it has whole groups of bits: every group is uniform over the alphabet, so no draw is rejected. A Cognito
    /// refresh token (1,026 characters of 64) takes 103 words rather than 1,026, and the generator's lock, which ids
    /// made inside the store's lock wait for, is held that much shorter.
    private func string(_ count: Int, powerOfTwoAlphabet alphabet: [UInt8]) -> String {
        let bits = alphabet.count.trailingZeroBitCount, perWord = 64 / bits, mask = UInt64(alphabet.count - 1)
        let words = state.withLock { source in (0..<(count + perWord - 1) / perWord).map { _ in source.next() } }
        // Word by word, shifting the next group down: dividing each index by `perWord` (not a constant) cost a
        // division per character, two thirds of the draw.
        return String(unsafeUninitializedCapacity: count) { out in
            var index = 0
            for var word in words {
                for _ in 0..<min(perWord, count - index) {
                    out[index] = alphabet[Int(word & mask)]
                    word >>= UInt64(bits)
                    index += 1
                }
            }
            return count
        }
    }

    /// A numeric code such as an OTP, with leading zeros kept.
    public func digits(_ count: Int) -> String { string(count, alphabet: "0123456789") }

    /// Lowercase letters and digits, as GoTrue's refresh tokens and Cognito's client ids.
    public func lowerAlphanumeric(_ count: Int) -> String { string(count, alphabet: "abcdefghijklmnopqrstuvwxyz0123456789") }
}

/// The system's cryptographic random source, read 2 KiB at a time from /dev/urandom:
/// `SystemRandomNumberGenerator` makes one getrandom(2) call per word, and a sign-in draws dozens of
/// words (ids, tokens; a Cognito refresh token alone over a thousand). Without /dev/urandom, the
/// standard library's generator a word at a time.
struct SystemWords {
    private static let urandom = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
    private var pool = [UInt64](repeating: 0, count: 256)
    private var used = 256

    mutating func next() -> UInt64 {
        if used == pool.count {
            let filled = pool.withUnsafeMutableBytes { buffer in
                var filled = 0
                while Self.urandom >= 0, filled < buffer.count {
                    let got = read(Self.urandom, buffer.baseAddress! + filled, buffer.count - filled)
                    if got > 0 { filled += got } else if got < 0, errno == EINTR { continue } else { break }
                }
                return filled == buffer.count
            }
            if !filled {
                var system = SystemRandomNumberGenerator()
                for index in pool.indices { pool[index] = system.next() }
            }
            used = 0
        }
        defer { used += 1 }
        return pool[used]
    }
}

/// xoshiro256** seeded through SplitMix64, the combination its authors recommend. Not for secrets in
/// production; deterministic mode exists for reproducible test runs.
struct Xoshiro256 {
    private var s: (UInt64, UInt64, UInt64, UInt64)

    init(seed: UInt64) {
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s = (splitMix(), splitMix(), splitMix(), splitMix())
    }

    mutating func next() -> UInt64 {
        let result = ((s.1 &* 5) << 7 | (s.1 &* 5) >> 57) &* 9
        let t = s.1 << 17
        s.2 ^= s.0; s.3 ^= s.1; s.1 ^= s.2; s.0 ^= s.3
        s.2 ^= t
        s.3 = (s.3 << 45) | (s.3 >> 19)
        return result
    }
}
