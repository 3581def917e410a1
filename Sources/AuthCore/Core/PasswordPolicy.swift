/// A tenant's password rules: a length, counted as its vendor counts, and character classes that must each appear.
/// The one check every dialect makes of a new password (`shortfalls`); each words what falls short its own way.
public struct PasswordPolicy: Sendable, Equatable {
    /// How a vendor counts a password's length.
    public enum Unit: Sendable, Equatable {
        /// Characters (grapheme clusters): a Cognito pool.
        case characters
        /// UTF-8 bytes: GoTrue (Go's `len`), whose 72 is bcrypt's limit in bytes.
        case utf8Bytes
        /// UTF-16 code units: the Firebase emulator (JavaScript's `length`).
        case utf16
    }

    public var minLength: Int
    /// The most a password may have, in `unit`; nil for no limit.
    public var maxLength: Int?
    public var unit: Unit
    /// Each entry is a set of characters of which at least one must appear (GoTrue's
    /// `GOTRUE_PASSWORD_REQUIRED_CHARACTERS`, groups separated by `:`; a Cognito pool's classes).
    public var requiredCharacterSets: [String]
    /// Characters that count toward a set only between two others: Cognito takes a space for a symbol unless it
    /// leads or trails.
    public var countedOnlyInside: Set<Character>

    public init(minLength: Int = 6, maxLength: Int? = nil, unit: Unit = .characters, requiredCharacterSets: [String] = [],
                countedOnlyInside: Set<Character> = []) {
        self.minLength = minLength
        self.maxLength = maxLength
        self.unit = unit
        self.requiredCharacterSets = requiredCharacterSets
        self.countedOnlyInside = countedOnlyInside
    }

    /// What a password lacks.
    public enum Shortfall: Sendable, Equatable {
        case tooLong
        case tooShort
        /// No character of `requiredCharacterSets[index]`.
        case missing(index: Int)
    }

    /// Everything `password` falls short of, in the order vendors check: its length, then each required set in turn.
    public func shortfalls(_ password: String) -> [Shortfall] {
        let length = switch unit {
        case .characters: password.count
        case .utf8Bytes: password.utf8.count
        case .utf16: password.utf16.count
        }
        var found: [Shortfall] = []
        if let maxLength, length > maxLength { found.append(.tooLong) }
        if length < minLength { found.append(.tooShort) }
        var counted = Substring(password).drop(while: countedOnlyInside.contains)
        while let last = counted.last, countedOnlyInside.contains(last) { counted = counted.dropLast() }
        for (index, set) in requiredCharacterSets.enumerated() where !set.isEmpty && !counted.contains(where: set.contains) {
            found.append(.missing(index: index))
        }
        return found
    }

    /// GoTrue's `checkPasswordStrength`: too long is a validation error of its own; otherwise one `weakPassword` with
    /// every reason (`characters` once, the message naming every set).
    public func check(_ password: String) throws {
        let shortfalls = shortfalls(password)
        if shortfalls.contains(.tooLong), let maxLength {
            throw AuthError.invalidInput(field: "Password", reason: "cannot be longer than \(maxLength) characters")
        }
        var reasons: [String] = []
        var messages: [String] = []
        if shortfalls.contains(.tooShort) {
            reasons.append("length")
            messages.append("Password should be at least \(minLength) characters.")
        }
        if shortfalls.contains(where: { if case .missing = $0 { true } else { false } }) {
            reasons.append("characters")
            messages.append("Password should contain at least one character of each: \(requiredCharacterSets.joined(separator: ", ")).")
        }
        guard reasons.isEmpty else { throw AuthError.weakPassword(reasons: reasons, message: messages.joined(separator: " ")) }
    }
}
