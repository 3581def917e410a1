/// Route patterns written `METHOD /a/{b}` (a dialect's or the control API's table): which methods serve a path, so an
/// unknown path (404) is told from a wrong method (405).
public enum RoutePatterns {
    /// The methods of the patterns that match `path` by shape, in the patterns' order.
    public static func methods(serving path: String, in routes: [String]) -> [String] {
        let segments = path.split(separator: "/")
        var methods: [String] = []
        for route in routes {
            let parts = route.split(separator: " ")
            let pattern = parts.last?.split(separator: "/") ?? []
            guard let method = parts.first.map(String.init), pattern.count == segments.count,
                  zip(pattern, segments).allSatisfy({ $0.hasPrefix("{") || $0 == $1 }), !methods.contains(method) else { continue }
            methods.append(method)
        }
        return methods
    }
}
