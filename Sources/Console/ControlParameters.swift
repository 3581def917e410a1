import Foundation
import Hummingbird

extension Parameters {
    /// A path parameter with its percent-encoding undone. The router hands over the path's own bytes, so a tenant id
    /// with a colon (a Firebase tenant's `demo-fauxth:tenant-a`) that a client encoded (`%3A`, as `encodeURIComponent`
    /// and the test helpers do) named no tenant. A malformed escape is kept as written.
    func decoded(_ name: String) throws -> String {
        let raw = try require(name)
        return raw.removingPercentEncoding ?? raw
    }
}
