/// A tenant's password rules: a minimum length and character classes that must each appear.
public struct PasswordPolicy: Sendable, Equatable {
    public var minLength: Int
    /// Each entry is a set of characters of which at least one must appear (GoTrue's
    /// `GOTRUE_PASSWORD_REQUIRED_CHARACTERS`, groups separated by `:`).
    public var requiredCharacterSets: [String]

    public init(minLength: Int = 6, requiredCharacterSets: [String] = []) {
        self.minLength = minLength
        self.requiredCharacterSets = requiredCharacterSets
    }

    /// Throws `weakPassword` with every reason that applies.
    public func check(_ password: String) throws {
        var reasons: [String] = []
        var messages: [String] = []
        if password.count < minLength {
            reasons.append("length")
            messages.append("Password should be at least \(minLength) characters.")
        }
        if requiredCharacterSets.contains(where: { set in !password.contains(where: set.contains) }) {
            reasons.append("characters")
            messages.append("Password should contain at least one character of each: \(requiredCharacterSets.joined(separator: ", ")).")
        }
        guard reasons.isEmpty else { throw AuthError.weakPassword(reasons: reasons, message: messages.joined(separator: " ")) }
    }
}
