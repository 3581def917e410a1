import AuthCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Server

/// A fresh emulator per test, built through the same `buildApplication` the CLI uses: the clock frozen
/// at 2026-01-01T00:00:00Z, a seeded generator (deterministic ids and codes) and one-round password
/// hashing, so suites run fast and in parallel.
public struct Harness: Sendable {
    /// The instant every harness clock starts at.
    public static let epoch = Date(timeIntervalSince1970: 1_767_225_600)

    public let app: FauxthApplication
    public var emulator: Emulator { app.emulator }

    /// - Parameter seed: the tenants to start with; the built-in seed when nil.
    public init(seed: Seed? = nil, generatorSeed: UInt64 = 42, configure: (inout FauxthOptions) -> Void = { _ in }) throws {
        var options = FauxthOptions(
            host: "127.0.0.1", port: 0, seed: try seed ?? SeedLoader.builtIn(), clock: EmulatorClock(frozenAt: Self.epoch),
            generator: Generator(seed: generatorSeed), passwordHasher: PasswordHasher(rounds: 1))
        configure(&options)
        app = try buildApplication(options)
    }

    /// Runs `body` against a Supabase project's own-port application, in process.
    public func runProject<T: Sendable>(_ tenant: String, _ body: @Sendable (Client) async throws -> T) async throws -> T {
        guard let project = app.projectApplications[tenant] else { throw AuthError.tenantNotFound(tenant) }
        return try await project.test(.router) { client in try await body(Client(client: client)) }
    }

    /// Runs `body` against the application in process (no socket), or over a live loopback socket.
    public func run<T: Sendable>(_ setup: TestingSetup = .router, _ body: @Sendable (Client) async throws -> T) async throws -> T {
        try await app.application.test(setup) { client in try await body(Client(client: client)) }
    }
}

/// A thin HTTP client over Hummingbird's test client that speaks JSON.
public struct Client: Sendable {
    let client: any TestClientProtocol

    /// The port of a live test server (`run(.live)`), for tests that speak raw TCP; nil in process.
    public var port: Int? { client.port }

    /// Sends a request; `json` becomes the body, or `raw` verbatim.
    @discardableResult
    public func send(_ method: HTTPRequest.Method, _ uri: String, json: JSON? = nil, raw: String? = nil,
                     headers: HTTPFields = [:]) async throws -> Reply {
        var headers = headers
        let body: ByteBuffer? = if let json { ByteBuffer(string: json.serialized()) } else { raw.map { ByteBuffer(string: $0) } }
        if body != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
        return try await client.execute(uri: uri, method: method, headers: headers, body: body) { response in
            Reply(status: response.status, headers: response.headers, body: response.body)
        }
    }

    /// Sends raw bytes (oversized or invalid UTF-8 bodies).
    public func send(_ method: HTTPRequest.Method, _ uri: String, bytes: [UInt8], headers: HTTPFields = [:]) async throws -> Reply {
        try await client.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(bytes: bytes)) { response in
            Reply(status: response.status, headers: response.headers, body: response.body)
        }
    }
}

/// A response with its body decoded on demand.
public struct Reply: Sendable {
    public let status: HTTPResponse.Status
    public let headers: HTTPFields
    public let body: ByteBuffer

    public var text: String { String(buffer: body) }
    /// The body as JSON, or `.null` when it is not JSON.
    public var json: JSON { (try? JSON.parse(body.readableBytesView)) ?? .null }
}

extension HTTPFields {
    /// The headers supabase-py sends on every call that matter to the wire format.
    public static let supabaseClient: HTTPFields = [HTTPField.Name("X-Supabase-Api-Version")!: "2024-01-01"]
}
