import HTTPSupport
import Hummingbird
import NIOCore

/// The request context every route runs with: Hummingbird's core storage plus the peer address, which
/// sessions and the audit trail record.
public struct FauxthContext: RequestContext, RemoteAddressRequestContext, ConnectionRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// The connection, which fault rules may close or reset.
    public let channel: (any Channel)?
    /// Set by the request log (`--log-requests`) for the dialect to note the operation in.
    public var requestNote: RequestNote?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }
}
