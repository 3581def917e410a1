import AuthCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Why a request body could not be read as a JSON object. Each dialect renders these in its own format.
public enum BodyError: Error, Equatable {
    case tooLarge(limit: Int)
    case empty
    case malformed(String)
    case notAnObject(String)
}

extension Request {
    /// The body as a JSON object, refusing anything over `limit` bytes (1 MiB by default) without
    /// reading past it.
    public func jsonObject(limit: Int = 1 << 20) async throws(BodyError) -> [String: JSON] {
        try Self.jsonObject(in: try await bodyBytes(limit: limit))
    }

    /// The body's bytes, refusing anything over `limit` bytes (1 MiB by default) without reading past it.
    /// The body can be read once: a dialect that reads it keeps what it read.
    public func bodyBytes(limit: Int = 1 << 20) async throws(BodyError) -> ByteBuffer {
        if let length = headers.first(.contentLength).flatMap(Int.init), length > limit { throw .tooLarge(limit: limit) }
        do { return try await body.collect(upTo: limit) } catch is NIOTooManyBytesError { throw .tooLarge(limit: limit) } catch {
            // The client closed before its Content-Length, or sent a broken chunked encoding: not a size problem.
            throw .malformed("the body ended early or its chunked encoding is broken")
        }
    }

    /// Body bytes as a JSON object.
    public static func jsonObject(in buffer: ByteBuffer) throws(BodyError) -> [String: JSON] {
        guard buffer.readableBytes > 0 else { throw .empty }
        let value: JSON
        do { value = try JSON.parse(buffer.readableBytesView) } catch {
            throw .malformed(describe(error))
        }
        guard case .object(let fields) = value else { throw .notAnObject(value.typeName) }
        return fields
    }

    /// Where the request came from, for sessions and the audit trail.
    public func origin(_ context: some RequestContext) -> RequestOrigin {
        let address = (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress
        let forwarded = headers.first(.xForwardedFor)?.split(separator: ",").first.map { $0.trimmingSpaces() }
        return RequestOrigin(ip: forwarded ?? address, userAgent: headers.first(.userAgent))
    }

    /// `http://host[:port]` this request was addressed to.
    public var baseURL: String { "http://\(head.authority ?? "127.0.0.1")" }

    private static func describe(_ error: any Error) -> String {
        if let syntax = error as? JSONSyntaxError { return syntax.description }
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as? NSError)?.userInfo["NSDebugDescription"] as? String
            return underlying ?? context.debugDescription
        }
        return "invalid JSON"
    }
}

extension Response {
    /// A JSON response, `application/json` unless `contentType` names another JSON type.
    public static func json(_ value: JSON, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:],
                            contentType: String = "application/json") -> Response {
        .json(bytes: value.serializedBytes(), status: status, headers: extra, contentType: contentType)
    }

    /// A JSON response from text already written (`JSONObjectWriter`).
    public static func json(bytes: [UInt8], status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:],
                            contentType: String = "application/json") -> Response {
        var headers = extra
        headers[.contentType] = contentType
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

extension HTTPFields {
    /// The first value of a field. The subscript joins every value of the name with ", ", which cost ten times the
    /// lookup (a sign-in reads its body's length or type): for fields that have one value.
    public func first(_ name: HTTPField.Name) -> String? {
        first { $0.name == name }?.value
    }
}

extension HTTPField.Name {
    public static let xForwardedFor = Self("X-Forwarded-For")!
}
