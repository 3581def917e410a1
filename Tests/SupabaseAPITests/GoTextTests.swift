import AuthCore
@testable import SupabaseAPI
import Testing

/// Go's `%q` and gofrs/uuid's refusals, which GoTrue's messages quote.
@Suite struct GoTextTests {
    @Test(arguments: [("bogus", #""bogus""#), ("a\"b\\c", #""a\"b\\c""#), ("tab\there", #""tab\there""#), ("é ✓", "\"é ✓\""),
                      ("\u{01}\u{7F}", #""\x01\x7f""#), ("\u{200B}", #""\u200b""#), ("\u{E000}", #""\ue000""#), ("", #""""#)])
    func quotesAsStrconvQuotes(_ text: String, _ quoted: String) {
        #expect(GoText.quote(text) == quoted)
    }

    @Test(arguments: [
        ("not-a-uuid", #"uuid: incorrect UUID length 10 in string "not-a-uuid""#),
        ("00000000_0000-4000-8000-000000000001", #"uuid: incorrect UUID format in string "00000000_0000-4000-8000-000000000001""#),
        ("0000000g-0000-4000-8000-000000000001", "encoding/hex: invalid byte: U+0067 'g'"),
        ("00000000-0000-4000-8000-000000000001", nil), ("{00000000-0000-4000-8000-000000000001}", nil),
    ] as [(String, String?)])
    func refusesUUIDsAsGofrsDoes(_ text: String, _ refusal: String?) {
        #expect(GoText.uuidRefusal(text) == refusal)
    }
}
