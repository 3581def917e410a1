import Foundation
import Hummingbird

/// A request to a Supabase project under its path prefix on the main port: `/projects/<id>/auth/v1/…`.
struct ProjectPrefix: Equatable {
    /// The project's id (its tenant), percent-decoded.
    let project: String
    /// Where its GoTrue is mounted, as the request wrote it (`/projects/<id>/auth/v1`).
    let mount: String

    init?(request: Request) {
        self.init(path: request.uri.path)
    }

    /// `/projects/<id>` as the request wrote it: what is Fauxth's own in the path.
    let root: String

    /// - Parameter service: any path under the project (its upstream services), not only GoTrue's.
    init?(path: String, service: Bool = false) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        // "", "projects", id, "auth", "v1", …
        guard segments.count >= 4, segments[0].isEmpty, segments[1] == "projects",
              service || (segments.count >= 5 && segments[3] == "auth" && segments[4] == "v1"),
              let project = String(segments[2]).removingPercentEncoding, !project.isEmpty else { return nil }
        self.project = project
        root = "/projects/\(segments[2])"
        mount = root + "/auth/v1"
    }
}
