import Foundation

extension Emulator {
    /// Records a redirect to a non-web scheme: the deep link the app would have been opened with.
    @discardableResult
    public func captureDeepLink(_ url: String, tenant: String, source: String, userId: String? = nil) throws -> DeepLink? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else { return nil }
        var params: [String: String] = [:]
        for item in components.queryItems ?? [] { params[item.name] = item.value ?? "" }
        if let fragment = components.fragment, var fragmentParts = URLComponents(string: "x:?" + fragment) {
            fragmentParts.scheme = nil
            for item in fragmentParts.queryItems ?? [] { params[item.name] = item.value ?? "" }
        }
        let id = newID()
        let captured = DeepLink(id: id, tenant: tenant, url: url, scheme: scheme, params: params, source: source, userId: userId,
                                createdAt: clock.now, sequence: 0)
        let link = try db.withConnection { c in try History.insert(c, captured, keep: retention.deepLinks) }
        if let link {
            feed.publish(.deepLink(link))
            record(.deepLinkCaptured, tenant: tenant, userId: userId, detail: ["deeplink_id": .string(id), "url": .string(url)])
        }
        return link
    }

    /// One captured deep link.
    public func deepLink(id: String) throws -> DeepLink? {
        try db.withConnection { c in try History.deepLink(c, id: id) }
    }

    /// Captured deep links, newest first.
    public func deepLinks(scheme: String? = nil, filter: ListFilter = ListFilter()) throws -> [DeepLink] {
        var selection = History.Selection(.deeplinks, filter)
        if let scheme { selection.and("scheme = ?", [.text(scheme.lowercased())]) }
        return try db.withConnection { c in try History.deepLinks(c, selection, limit: filter.limit) }
    }

    /// Whether a redirect target is an app's own link: any scheme but http(s).
    public static func isDeepLink(_ url: String) -> Bool {
        guard let scheme = URLComponents(string: url)?.scheme?.lowercased() else { return false }
        // Browser-internal schemes open no app; mailto/tel/sms open the system's own handlers, not the app.
        return !["http", "https", "javascript", "data", "vbscript", "about", "blob", "file", "mailto", "tel", "sms"].contains(scheme)
    }

    /// Whether `url` would open an app rather than a web page: any scheme but http(s), or an http(s) URL
    /// the tenant registered as an app's (iOS universal links, Android App Links) in its `app_links`
    /// globs, matched without the query and fragment.
    public func opensApp(_ url: String, tenant: String) -> Bool {
        if Self.isDeepLink(url) { return true }
        guard let patterns = (try? self.tenant(tenant))??.settings["app_links"]?.arrayValue, !patterns.isEmpty else { return false }
        let page = String(url.prefix { $0 != "?" && $0 != "#" })
        return patterns.contains { $0.stringValue.map { Glob.matches($0, page) } ?? false }
    }

    /// Captures a redirect target or a link in a message when it opens an app (see `opensApp`).
    @discardableResult
    public func captureIfAppLink(_ url: String, tenant: String, source: String, userId: String? = nil) throws -> DeepLink? {
        guard opensApp(url, tenant: tenant) else { return nil }
        return try captureDeepLink(url, tenant: tenant, source: source, userId: userId)
    }
}
