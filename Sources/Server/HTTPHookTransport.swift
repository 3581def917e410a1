import AsyncHTTPClient
import AuthCore
import Foundation
import NIOCore
import NIOHTTP1

/// Sends hook calls with AsyncHTTPClient's shared client: a POST with the dialect's headers and body,
/// bounded by the vendor's timeout; the answer's first megabyte is read (no vendor accepts more).
struct HTTPHookTransport: HookTransport {
    static let answerLimit = 1 << 20

    func send(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async -> HookOutcome {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000
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
