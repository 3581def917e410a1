import AuthCore
import Console
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import NIOCore

/// Instead of redirecting to an app's own scheme, a page showing the deep link: its parameters, a button
/// that opens it, and the commands that open it on a simulator. For a tenant whose settings say
/// `deep_link_interstitial: true`, or for a browser that passed `fauxth_interstitial=1` on any request
/// (remembered in a cookie for the rest of its flow). The link is captured either way.
struct DeepLinkInterstitialMiddleware<Context: RequestContext>: RouterMiddleware {
    let emulator: Emulator
    let page: @Sendable (String) -> String?

    static var cookie: String { "fauxth_interstitial" }

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        let asked = request.uri.queryParameters.get("fauxth_interstitial")
        var response = try await next(request, context)
        if let asked {
            // Remembered for the next hops of the same flow (the provider, the callback…).
            response.headers.append(HTTPField(name: .setCookie, value: "\(Self.cookie)=\(asked == "1" ? "1" : "0"); Path=/; SameSite=Lax"))
        }
        // A redirect the dialect captured as opening an app (its own scheme, or a registered app link).
        guard (300..<400).contains(response.status.code), let location = response.headers[.location],
              let link = try emulator.deepLinks(filter: ListFilter(limit: 20)).first(where: { $0.url == location }) else {
            return response
        }
        let wanted: Bool
        if let asked { wanted = asked == "1" } else if let remembered = request.cookies[Self.cookie]?.value { wanted = remembered == "1" }
        else { wanted = try emulator.tenant(link.tenant)?.settings["deep_link_interstitial"]?.boolValue ?? false }
        guard wanted else { return response }
        var page = Self.render(location, template: page("web/deeplink.html"))
        for cookie in response.headers[values: .setCookie] { page.headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return page
    }

    static func render(_ url: String, template: String?) -> Response {
        var parameters: [(String, String)] = []
        if let components = URLComponents(string: url) {
            parameters += (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }
            if let fragment = components.fragment { parameters += (URLComponents(string: "x:?" + fragment)?.queryItems ?? []).map { ($0.name, $0.value ?? "") } }
        }
        let rows = parameters.map { "<tr><td>\(HTMLPage.escape($0.0))</td><td>\(HTMLPage.escape($0.1))</td></tr>" }.joined()
        let html = HTMLPage.fill(template ?? "<!doctype html><title>Deep link</title><a href=\"{{url}}\">{{url}}</a>{{parameters}}",
                                 values: ["url": url, "ios": DeepLinkOpener.simctl.commandLine(for: url),
                                          "android": DeepLinkOpener.adb.commandLine(for: url)],
                                 markup: ["parameters": rows.isEmpty ? "<tr><td colspan=\"2\">none</td></tr>" : rows])
        // The copy buttons are the page's only script; the open button is a link to the app's scheme.
        return HTMLPage.response(html, contentSecurityPolicy: "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; frame-ancestors 'none'")
    }
}
