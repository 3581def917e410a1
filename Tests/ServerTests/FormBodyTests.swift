import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import Testing

/// Form bodies and query strings (`FormBody.decode`), read by hand in one pass: every query string and form body
/// of every dialect goes through it.
@Suite struct FormBodyTests {
    @Test(arguments: [
        ("grant_type=refresh_token&refresh_token=abc", ["grant_type": "refresh_token", "refresh_token": "abc"]),
        ("a=one+two&b=%2B%20%26%3D", ["a": "one two", "b": "+ &="]),
        ("a=1&a=2", ["a": "1"]),
        ("flag&b=", ["flag": "", "b": ""]),
        ("a=b=c", ["a": "b=c"]),
        ("name=%C3%A9t%C3%A9", ["name": "été"]),
        ("k%65y=v", ["key": "v"]),
        ("", [:]),
        ("a=1&&b=2", ["a": "1", "": "", "b": "2"]),
    ])
    func wellFormedTextsDecode(_ text: String, _ fields: [String: String]) {
        #expect(FormBody.decode(text) == fields)
    }

    /// A malformed escape, or escapes that are not UTF-8, leave no fields at all (Go's `url.ParseQuery`, as GoTrue
    /// reads a form, refuses the whole text), never half of them.
    @Test(arguments: ["a=%zz", "a=1&b=%4", "a=%", "%FF=1", "a=%C3", "ok=1&bad=%E2%82"])
    func malformedEscapesLeaveNoFields(_ text: String) {
        #expect(FormBody.decode(text).isEmpty)
    }

    /// What `encode` writes, `decode` reads back, for names and values with every kind of character.
    @Test func encodedPairsDecodeToThemselves() {
        let pairs = [("redirect_uri", "myapp://callback?x=1&y=2"), ("state", "a b+c/d"), ("emoji", "🔑 ключ"), ("empty", "")]
        #expect(FormBody.decode(FormBody.encode(pairs)) == Dictionary(uniqueKeysWithValues: pairs))
    }
}

/// `HTTPFields.first`: a field's first value, where the subscript joins them all.
@Suite struct FirstFieldTests {
    @Test func theFirstValueOfARepeatedField() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .xForwardedFor, value: "203.0.113.7, 10.0.0.1"))
        fields.append(HTTPField(name: .xForwardedFor, value: "10.0.0.2"))
        fields[.contentType] = "application/json"
        #expect(fields.first(.xForwardedFor) == "203.0.113.7, 10.0.0.1")
        #expect(fields[.xForwardedFor] == "203.0.113.7, 10.0.0.1, 10.0.0.2")
        #expect(fields.first(.contentType) == "application/json")
        #expect(fields.first(.userAgent) == nil)
    }
}

/// `Request.hasFormBody`: the one check the form readers share (Firebase's token endpoint, Cognito's `/oauth2/token`,
/// `formFields`).
@Suite struct FormContentTypeTests {
    @Test(arguments: [("application/x-www-form-urlencoded", true), ("Application/X-WWW-Form-Urlencoded; charset=UTF-8", true),
                      ("application/json", false), (nil, false)])
    func aFormIsToldByItsContentType(_ contentType: String?, _ isForm: Bool) {
        var fields = HTTPFields()
        if let contentType { fields[.contentType] = contentType }
        let request = Request(head: HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/", headerFields: fields),
                              body: RequestBody(buffer: ByteBuffer()))
        #expect(request.hasFormBody == isForm)
    }
}
