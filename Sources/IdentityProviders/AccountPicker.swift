import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// The fake provider's sign-in page, from `web/idp-authorize.html`: the accounts to pick from, a form for
/// a new one, and buttons that end the sign-in the way real providers fail.
public struct AccountPicker: Sendable {
    let page: @Sendable (String) -> String?

    public init(page: @escaping @Sendable (String) -> String?) { self.page = page }

    /// An account as the page lists it: what picking it posts, and how it is shown.
    public struct Choice: Sendable {
        public var value: String
        public var name: String
        public var detail: String

        public init(value: String, name: String, detail: String) { self.value = value; self.name = name; self.detail = detail }
    }

    var template: String {
        page("web/idp-authorize.html") ?? "<!doctype html><title>{{title}}</title><h1>{{heading}}</h1><p>{{message}}</p>{{accounts}}"
    }

    func render(_ provider: FakeProvider, request: FakeIdentityProviders.AuthorizationRequest, accounts: [IdentityProviderAccount]) -> Response {
        let hidden = FakeIdentityProviders.AuthorizationRequest.names.compactMap { name in request.parameters[name].map { (name, $0) } }
        let choices = accounts.map { account in
            Choice(value: account.sub, name: account.claims["name"]?.stringValue ?? account.email ?? account.sub, detail: account.email ?? account.sub)
        }
        return render(providerName: provider.name, action: "/_emu/idp/\(provider.id)/authorize", hidden: hidden, accounts: choices,
                      audience: request.clientId, privateRelay: provider.kind == "apple")
    }

    /// The page for any sign-in that picks an account: each choice posts `account=<value>` with the hidden
    /// fields to `action`; the form for a new account posts `email`, `name`, `email_verified` (and
    /// `private_email` with `privateRelay`); the failure buttons post `error`.
    public func render(providerName: String, action: String, hidden: [(String, String)], accounts: [Choice], audience: String,
                       privateRelay: Bool, failures: [(value: String, label: String)] = Self.oauthFailures) -> Response {
        let fields = hidden.map { "<input type=\"hidden\" name=\"\(HTMLPage.escape($0.0))\" value=\"\(HTMLPage.escape($0.1))\">" }
            .joined(separator: "\n      ")
        let buttons = failures.map { failure in
            "<button type=\"submit\" name=\"error\" value=\"\(HTMLPage.escape(failure.value))\">\(HTMLPage.escape(failure.label))</button>"
        }.joined(separator: "\n      ")
        let items = accounts.map { account in
            """
            <li><form method="post" action="\(HTMLPage.escape(action))">\(fields)<button type="submit" name="account" value="\(HTMLPage.escape(account.value))">\
            <span class="who">\(HTMLPage.escape(account.name))</span><span class="email">\(HTMLPage.escape(account.detail))</span></button></form></li>
            """
        }.joined(separator: "\n      ")
        let html = HTMLPage.fill(template, values: [
            "title": "Sign in with \(providerName)", "heading": "Sign in with \(providerName)", "provider": providerName, "action": action,
            "message": accounts.isEmpty ? "No \(providerName) accounts yet: make one below." : "Choose an account to continue to \(audience).",
        ], markup: ["accounts": items, "hidden": fields, "failures": buttons], sections: ["picker": true, "apple": privateRelay])
        // The page's forms end in a redirect to the client, which form-action would have to allow.
        return HTMLPage.response(html, formsMayRedirect: true)
    }

    /// How an OAuth provider's sign-in fails: the `error` values RFC 6749 §4.1.2.1 gives a person's refusal and
    /// a provider's trouble.
    public static let oauthFailures: [(value: String, label: String)] = [
        ("access_denied", "Cancel (access_denied)"), ("server_error", "Server error"), ("temporarily_unavailable", "Temporarily unavailable"),
    ]

    /// A page that says why the sign-in cannot go on.
    public func error(_ message: String, status: HTTPResponse.Status) -> Response {
        HTMLPage.response(HTMLPage.fill(template, values: ["title": "Sign-in error", "heading": "Sign-in error", "message": message, "class": "error",
                                                           "provider": "identity provider"], sections: ["picker": false]), status: status)
    }

    /// `response_mode=form_post`: a page that posts the answer to the client at once (Apple's way), with
    /// a button for browsers that run no scripts.
    func formPost(to target: String, parameters: [(String, String)]) -> Response {
        let fields = parameters.map { "<input type=\"hidden\" name=\"\(HTMLPage.escape($0.0))\" value=\"\(HTMLPage.escape($0.1))\">" }.joined()
        let html = """
            <!doctype html><html><head><meta charset="utf-8"><title>Signing in…</title></head>
            <body onload="document.forms[0].submit()"><form method="post" action="\(HTMLPage.escape(target))">\(fields)
            <noscript><button type="submit">Continue</button></noscript></form></body></html>
            """
        // The inline onload submits the form; nothing else may run or load.
        return HTMLPage.response(html, contentSecurityPolicy: "default-src 'none'; script-src 'unsafe-inline'; frame-ancestors 'none'")
    }
}
