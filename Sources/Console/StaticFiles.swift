import AuthCore
import Foundation
import HTTPTypes
import Hummingbird

/// Serves the console under `/_emu/`: from `--web-root` when given (edit and reload while developing),
/// else from the files compiled into the binary.
public struct StaticFiles: Sendable {
    let webRoot: String?

    public init(webRoot: String?) {
        self.webRoot = webRoot
    }

    public func addRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get { _, _ in try serve("index.html") }
        group.get(":file") { _, context in try serve(try context.parameters.require("file")) }
    }

    func serve(_ name: String) throws -> Response {
        guard name.wholeMatch(of: #/[A-Za-z0-9_-]+\.(html|js|css|svg|png|ico|json)/#) != nil, let bytes = contents(of: name) else {
            throw HTTPError(.notFound, message: "no console file \(name)")
        }
        var headers = HTTPFields()
        headers[.contentType] = Self.contentType(name)
        headers[.cacheControl] = "no-cache"
        headers[.contentSecurityPolicy] = "default-src 'self'; frame-src 'self' about: data:; img-src 'self' data:; style-src 'self' 'unsafe-inline'"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The text of a file under `web/` (`web/firebase-action.html`), from the web root or the binary.
    public func text(_ path: String) -> String? {
        let name = path.hasPrefix("web/") ? String(path.dropFirst(4)) : path
        return contents(of: name).flatMap { String(bytes: $0, encoding: .utf8) }
    }

    private func contents(of name: String) -> [UInt8]? {
        if let webRoot {
            return FileManager.default.contents(atPath: URL(fileURLWithPath: webRoot).appendingPathComponent(name).path).map(Array.init)
        }
        return EmbeddedAssets.file("web/\(name)")
    }

    static func contentType(_ name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }
}
