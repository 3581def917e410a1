import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// The OAuth parameters of an `/oauth2/authorize` request, which the hosted UI's pages carry from form
/// to form (as hidden fields) until the sign-in completes.
struct AuthorizeRequest: Sendable {
    static let names = ["response_type", "client_id", "redirect_uri", "state", "scope", "nonce", "code_challenge", "code_challenge_method",
                        "identity_provider", "idp_identifier", "lang", "prompt"]

    /// The parameters present, in a fixed order.
    let fields: [(String, String)]

    init(_ parameters: [String: String]) {
        fields = Self.names.compactMap { name in parameters[name].map { (name, $0) } }
    }

    subscript(_ name: String) -> String? {
        fields.first { $0.0 == name }.flatMap { $0.1.isEmpty ? nil : $0.1 }
    }

    /// The parameters as a query string, for links between the pages.
    var query: String { FormBody.encode(fields) }
}

/// The hosted UI's pages, filled from `web/cognito-login.html`: each page is one section of it.
struct LoginPages: Sendable {
    let page: @Sendable (String) -> String?

    enum Kind: String, CaseIterable {
        case error, login, challenge, signup, confirm, forgot, reset, passkey
    }

    struct Content {
        var kind: Kind
        var heading: String
        var appName = "Sign in"
        var notice: String?
        var alert: String?
        var message: String?
        var request: AuthorizeRequest?
        var csrf = ""
        var username = ""
        var email = ""
        var usernameLabel = "Username"
        /// The sign-in session a challenge page posts back.
        var session: String?
        var newPassword = false
        var codeLabel = "Code"
        var submitLabel = "Sign in"
        var signUpAllowed = true
        /// Whether the sign-up form asks for an email besides the username.
        var asksEmail = false
        /// The client's identity providers: name and the link that starts each one's sign-in.
        var federation: [(name: String, link: String)] = []
        /// Whether the sign-in page offers a passkey (the pool allows `WEB_AUTHN` and has a relying party).
        var passkeySignIn = false
        /// The passkey page's WebAuthn options (JSON), ceremony (`get` or `create`) and where it posts the answer.
        var passkeyOptions = ""
        var passkeyCeremony = "get"
        var passkeyAction = "/login"
        /// The authenticator set-up page's QR code (an SVG, drawn on the server: the pages run no script) and its key.
        var authenticator: (qrCode: String, key: String)?
    }

    func render(_ content: Content, status: HTTPResponse.Status = .ok, cookies: [String] = []) -> Response {
        let template = page("web/cognito-login.html")
            ?? "<!doctype html><title>{{title}}</title><h1>{{heading}}</h1><p>{{alert}}</p><p>{{message}}</p>"
        var sections = Dictionary(uniqueKeysWithValues: Kind.allCases.map { ($0.rawValue, $0 == content.kind) })
        sections["notice"] = content.notice != nil
        sections["alert"] = content.alert != nil
        sections["message"] = content.message != nil
        sections["newpassword"] = content.newPassword
        sections["codefield"] = !content.newPassword
        sections["signuplink"] = content.signUpAllowed
        sections["emailfield"] = content.asksEmail
        let hidden = ((content.request?.fields ?? []) + [("_csrf", content.csrf)]).map { name, value in
            "<input type=\"hidden\" name=\"\(HTMLPage.escape(name))\" value=\"\(HTMLPage.escape(value))\">"
        }.joined(separator: "\n      ")
        sections["federation"] = !content.federation.isEmpty && content.kind == .login
        sections["passkeysignin"] = content.passkeySignIn
        sections["authenticator"] = content.authenticator != nil
        let federation = content.federation.map { "<a class=\"provider\" href=\"\(HTMLPage.escape($0.link))\">Continue with \(HTMLPage.escape($0.name))</a>" }
            .joined(separator: "\n      ")
        let values = ["title": content.heading, "heading": content.heading, "appName": content.appName, "notice": content.notice ?? "",
                      "alert": content.alert ?? "", "message": content.message ?? "", "query": content.request?.query ?? "",
                      "username": content.username, "email": content.email, "usernameLabel": content.usernameLabel,
                      "session": content.session ?? "", "codeLabel": content.codeLabel, "submitLabel": content.submitLabel,
                      "class": content.kind == .error ? "error" : "", "options": content.passkeyOptions, "ceremony": content.passkeyCeremony,
                      "passkeyAction": content.passkeyAction, "authenticatorKey": content.authenticator?.key ?? ""]
        var headers = HTTPFields()
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        // The passkey page runs its one inline script (the WebAuthn ceremony); no other page runs any.
        let policy = content.kind == .passkey
            ? "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'" : nil
        return HTMLPage.response(HTMLPage.fill(template, values: values, markup: ["hidden": hidden, "providers": federation,
                                                                                  "qrCode": content.authenticator?.qrCode ?? ""], sections: sections),
                                 status: status, headers: headers,
                                 formsMayRedirect: true, contentSecurityPolicy: policy)
    }

    /// A page with nothing to do but say what went wrong.
    func error(_ message: String, status: HTTPResponse.Status = .badRequest) -> Response {
        render(Content(kind: .error, heading: "Something went wrong", message: message), status: status)
    }
}
