import AsyncHTTPClient
import AuthCore
import Foundation
import NIOCore
import NIOHTTP1

/// Sends hook calls with AsyncHTTPClient: a POST with the dialect's headers and body, bounded by the
/// vendor's timeout; the answer's first megabyte is read (no vendor accepts more).
struct HTTPHookTransport: HookTransport {
    static let answerLimit = 1 << 20

    /// One client for the process (it lives as long as the process, so it is never shut down). A refused
    /// connection fails at once, as Go's and Node's clients do, instead of AsyncHTTPClient's default of
    /// retrying until the deadline: the vendors' own retry rules (GoTrue's three tries) then apply.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    func send(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async -> HookOutcome {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await Self.client.execute(request, timeout: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000
                                                                                                + timeout.components.attoseconds / 1_000_000_000))
            var answer = try await response.body.collect(upTo: Self.answerLimit)
            return .answered(status: Int(response.status.code), contentType: response.headers.first(name: "content-type"),
                             body: answer.readBytes(length: answer.readableBytes) ?? [])
        } catch let error as HTTPClientError where [.deadlineExceeded, .readTimeout, .connectTimeout].contains(error) {
            return .timedOut
        } catch is NIOTooManyBytesError {
            return .unreachable("the answer is over \(Self.answerLimit) bytes")
        } catch {
            return .unreachable(String(describing: error))
        }
    }
}
