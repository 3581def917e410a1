import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// The fake provider's sign-in page, from `web/idp-authorize.html`: the accounts to pick from, a form for
/// a new one, and buttons that end the sign-in the way real providers fail.
struct AccountPicker {
    let page: @Sendable (String) -> String?

    var template: String {
        page("web/idp-authorize.html") ?? "<!doctype html><title>{{title}}</title><h1>{{heading}}</h1><p>{{message}}</p>{{accounts}}"
    }

    func render(_ provider: FakeProvider, request: FakeIdentityProviders.AuthorizationRequest, accounts: [IdentityProviderAccount]) -> Response {
        let action = "/_emu/idp/\(provider.id)/authorize"
        let hidden = FakeIdentityProviders.AuthorizationRequest.names.compactMap { name in
            request.parameters[name].map { "<input type=\"hidden\" name=\"\(name)\" value=\"\(HTMLPage.escape($0))\">" }
        }.joined(separator: "\n      ")
        let items = accounts.map { account in
            let who = account.claims["name"]?.stringValue ?? account.email ?? account.sub
            return """
                <li><form method="post" action="\(action)">\(hidden)<button type="submit" name="account" value="\(HTMLPage.escape(account.sub))">\
                <span class="who">\(HTMLPage.escape(who))</span><span class="email">\(HTMLPage.escape(account.email ?? account.sub))</span></button></form></li>
                """
        }.joined(separator: "\n      ")
        let html = HTMLPage.fill(template, values: [
            "title": "Sign in with \(provider.name)", "heading": "Sign in with \(provider.name)", "provider": provider.name, "action": action,
            "message": accounts.isEmpty ? "No \(provider.name) accounts yet: make one below."
                : "Choose an account to continue to \(request.clientId).",
        ], markup: ["accounts": items, "hidden": hidden], sections: ["picker": true, "apple": provider.kind == "apple"])
        // The page's forms end in a redirect to the client, which form-action would have to allow.
        return HTMLPage.response(html, formsMayRedirect: true)
    }

    func error(_ message: String, status: HTTPResponse.Status) -> Response {
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
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        // The inline onload submits the form; nothing else may run or load.
        headers[.contentSecurityPolicy] = "default-src 'none'; script-src 'unsafe-inline'; frame-ancestors 'none'"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }
}
