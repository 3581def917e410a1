import Foundation
import Testing
@testable import AuthCore

@Suite struct ClockTests {
    let start = Date(timeIntervalSince1970: 1_767_225_600)

    @Test func frozenClockOnlyMovesWhenAdvanced() {
        let clock = EmulatorClock(frozenAt: start)
        #expect(clock.now == start)
        #expect(clock.mode == .frozen)
        clock.advance(by: 90)
        #expect(clock.now == start.addingTimeInterval(90))
        #expect(clock.mode == .frozen)
    }

    @Test func advancingARunningClockMakesItAnOffsetClock() {
        let wall = Date(timeIntervalSince1970: 1_000)
        let clock = EmulatorClock(wallClock: { wall })
        #expect(clock.mode == .real)
        clock.advance(by: 3600)
        #expect(clock.mode == .offset)
        #expect(clock.now == wall.addingTimeInterval(3600))
    }

    @Test func resumeContinuesFromTheFrozenInstantInsteadOfJumpingBack() {
        let wall = Date(timeIntervalSince1970: 5_000)
        let clock = EmulatorClock(frozenAt: start, wallClock: { wall })
        clock.resume()
        #expect(clock.now == start)
        #expect(clock.mode == .offset)
    }

    @Test func freezeWithoutAnInstantStopsAtNow() {
        let wall = Date(timeIntervalSince1970: 7_000)
        let clock = EmulatorClock(offset: 10, wallClock: { wall })
        clock.freeze()
        #expect(clock.now == wall.addingTimeInterval(10))
        #expect(clock.mode == .frozen)
    }

    @Test(arguments: ["real", "frozen", "frozen@2026-01-01T00:00:00Z", "offset@3600"])
    func clockOptionParses(_ text: String) {
        #expect(EmulatorClock.parse(text) != nil)
    }

    @Test(arguments: ["", "frozen@yesterday", "offset@soon", "paused"])
    func badClockOptionIsRefused(_ text: String) {
        #expect(EmulatorClock.parse(text) == nil)
    }

    /// Every dialect's token checks ask the clock whether `exp` has come: a token is good strictly before it, and one
    /// without `exp` is good unless the caller requires one.
    @Test func aTokensExpiryHasPassedFromItsSecondOn() {
        let clock = EmulatorClock(frozenAt: Date(timeIntervalSince1970: 1_000))
        #expect(!clock.hasPassed(expiryOf: ["exp": 1_001]))
        #expect(clock.hasPassed(expiryOf: ["exp": 1_000]))
        #expect(clock.hasPassed(expiryOf: ["exp": 999]))
        #expect(!clock.hasPassed(expiryOf: [:]))
        #expect(clock.hasPassed(expiryOf: [:], required: true))
        #expect(clock.hasPassed(expiryOf: ["exp": "1001"], required: true))
        clock.advance(by: -2)
        #expect(!clock.hasPassed(expiryOf: ["exp": 1_000]))
    }

    @Test func rfc3339RoundTripsWithMicroseconds() {
        let date = Date(timeIntervalSince1970: 1_767_225_600.123456)
        let text = RFC3339.string(from: date)
        #expect(text == "2026-01-01T00:00:00.123456Z")
        #expect(abs(RFC3339.date(from: text)!.timeIntervalSince(date)) < 0.000_01)
        #expect(RFC3339.date(from: "2026-01-01T02:00:00+02:00") == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(RFC3339.date(from: "2026-13-01T00:00:00Z") == nil)
    }

    /// Only ASCII digits are digits: another script's (a regular expression's `\d` takes them) are refused, not read
    /// as numbers that are not there (a zone of Arabic-Indic digits crashed the process on `GET /events?since=`).
    @Test(arguments: ["2026-01-01T00:00:00+٠٥:٠٠", "٢٠٢٦-01-01T00:00:00Z", "2026-01-01T00:00:00.١Z", "2026-01-01T00:00:00+０５:００"])
    func rfc3339RefusesOtherScriptsDigits(_ text: String) {
        #expect(RFC3339.date(from: text) == nil)
    }

    @Test func rfc3339AgreesWithTheCalendarAcrossCenturiesAndLeapDays() {
        let reference = ISO8601DateFormatter()
        var dates = [0, 951_782_400, 951_868_799, 4_107_542_400, 253_402_300_799].map { Date(timeIntervalSince1970: TimeInterval($0)) }
        let generator = Generator(seed: 3)
        for _ in 0..<2000 { dates.append(Date(timeIntervalSince1970: TimeInterval(generator.int(in: 0...253_402_300_799)))) }
        for date in dates { #expect(RFC3339.string(from: date, fractionalDigits: 0) == reference.string(from: date)) }
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 951_782_400.9999996)) == "2000-02-29T00:00:01.000000Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_767_225_600.5), fractionalDigits: 3) == "2026-01-01T00:00:00.500Z")
    }
}

@Suite struct GeneratorTests {
    @Test func sameSeedGivesTheSameIdsAndCodes() {
        let a = Generator(seed: 1234), b = Generator(seed: 1234)
        #expect((0..<5).map { _ in a.uuid() } == (0..<5).map { _ in b.uuid() })
        #expect(a.digits(6) == b.digits(6))
        #expect(a.bytes(33) == b.bytes(33))
    }

    @Test func differentSeedsDiverge() {
        #expect(Generator(seed: 1).uuid() != Generator(seed: 2).uuid())
    }

    @Test func uuidsAreVersion4() {
        let id = Generator(seed: 9).uuid()
        #expect(id.wholeMatch(of: #/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/#) != nil)
    }

    @Test func codesKeepTheirLengthAndAlphabet() {
        let generator = Generator(seed: 3)
        for _ in 0..<200 {
            #expect(generator.digits(6).wholeMatch(of: #/[0-9]{6}/#) != nil)
            #expect(generator.lowerAlphanumeric(12).wholeMatch(of: #/[a-z0-9]{12}/#) != nil)
        }
    }

    @Test func theSystemSourceKeepsDrawingFreshValuesAcrossItsBufferRefills() {
        // 256 words are read at a time; 1,000 ids (two words each) cross several refills.
        let generator = Generator()
        let ids = (0..<1000).map { _ in generator.uuid() }
        #expect(Set(ids).count == ids.count)
        #expect(Set((0..<50).map { _ in generator.lowerAlphanumeric(12) }).count == 50)
    }

    @Test func aStringDrawsTheSameWordsAsOneIntAtATime() {
        let a = Generator(seed: 77), b = Generator(seed: 77)
        let alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
        let text = a.string(40, alphabet: alphabet)
        let oneByOne = String((0..<40).map { _ in Array(alphabet)[b.int(in: 0...(alphabet.count - 1))] })
        #expect(text == oneByOne)
        #expect(a.string(8, alphabet: "αβγ") .allSatisfy { "αβγ".contains($0) })
    }

    @Test func aPowerOfTwoAlphabetIsDrawnSeveralCharactersToAWord() {
        // 64 characters: six bits each, ten to a word, so 1,026 characters take 103 words, and the generator has drawn
        // exactly those (the next word is the 104th).
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        let a = Generator(seed: 11), b = Generator(seed: 11)
        let text = a.string(1026, alphabet: alphabet)
        let words = (0..<103).map { _ in b.bytes(8) }
        #expect(a.bytes(8) == b.bytes(8))
        // Character i is the (i mod 10)th six bits of word i / 10, the lowest first, to the last word's six.
        let values = words.map { word in word.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << UInt64(8 * $1.offset) } }
        #expect(text == String((0..<1026).map { Array(alphabet)[Int((values[$0 / 10] >> UInt64(6 * ($0 % 10))) & 63)] }))
        #expect(text.count == 1026 && text.allSatisfy { alphabet.contains($0) })
        // Every character of a 16-character alphabet turns up, about as often as the others.
        let hex = Generator(seed: 12).string(16_000, alphabet: "0123456789abcdef")
        let counts = Dictionary(grouping: hex, by: { $0 }).mapValues(\.count)
        #expect(counts.count == 16 && counts.values.allSatisfy { (800...1200).contains($0) })
        #expect(Generator(seed: 13).string(7, alphabet: "ab").allSatisfy { "ab".contains($0) })
    }

    @Test func intStaysInRange() {
        let generator = Generator(seed: 5)
        let values = (0..<1000).map { _ in generator.int(in: 3...7) }
        #expect(values.allSatisfy { (3...7).contains($0) })
        #expect(Set(values) == Set(3...7))
    }
}

@Suite struct RateWindowTests {
    let start = Date(timeIntervalSince1970: 1_767_225_600)
    let limit = RateLimit(count: 2, window: 60)

    @Test func allowsUpToTheLimitThenSaysWhenToRetry() {
        var window = RateWindow()
        #expect(window.record(at: start, limit: limit) == .allowed)
        #expect(window.record(at: start.addingTimeInterval(10), limit: limit) == .allowed)
        #expect(window.record(at: start.addingTimeInterval(20), limit: limit) == .limited(retryAfter: 40))
        #expect(window.record(at: start.addingTimeInterval(60), limit: limit) == .allowed)
    }

    @Test func aZeroLimitAlwaysRefuses() {
        var window = RateWindow()
        #expect(window.record(at: start, limit: RateLimit(count: 0, window: 3600)) == .limited(retryAfter: 3600))
    }

    @Test func theLimiterKeepsSeparateWindowsPerKey() throws {
        let limiter = RateLimiter()
        try limiter.consume("a", limit: RateLimit(count: 1, window: 60), at: start)
        try limiter.consume("b", limit: RateLimit(count: 1, window: 60), at: start)
        #expect(throws: AuthError.rateLimited(retryAfter: 60)) { try limiter.consume("a", limit: RateLimit(count: 1, window: 60), at: start) }
    }
}
