extension Character {
    /// 0 to 9 only. `isNumber`, like a regular expression's `\d`, also takes other scripts' digits (`١`, `２`), fractions
    /// and numerals, which no vendor reads as digits and `Int` or `Double` then refuse; a range of characters would take
    /// a digit with a combining mark (`5́`).
    public var isASCIIDigit: Bool { asciiValue.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false }
}
