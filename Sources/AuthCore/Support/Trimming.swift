extension StringProtocol {
    /// The text without leading and trailing spaces and tabs: what `trimmingCharacters(in: .whitespaces)`
    /// answers (tab and Unicode's space separators), without Foundation's bridging through NSString, which
    /// was a percent of every password sign-in for emails that had nothing to trim.
    public func trimmingSpaces() -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar == " " || (!scalar.isASCII && scalar.properties.generalCategory == .spaceSeparator)
        }
        let text = Substring(String(self))
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(scalars[first...last])
    }
}
