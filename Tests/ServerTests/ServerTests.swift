import AuthCore
import Console
import FauxthTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct ServerTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theOpenAPIDocumentDescribesExactlyTheControlRoutes() async throws {
        let harness = try Harness()
        let document = try await harness.run { try await $0.send(.get, "/_emu/v1/openapi.json") }.json
        #expect(document["openapi"] == "3.1.0")
        let methods = ["get", "post", "put", "patch", "delete"]
        var documented: Set<String> = []
        for (path, item) in document["paths"]?.objectValue ?? [:] {
            for method in methods where item[method] != nil { documented.insert("\(method.uppercased()) \(path)") }
        }
        #expect(documented == Set(ControlAPI.routes))
    }

    @Test func embeddedAssetsMatchTheFilesInTheRepository() throws {
        for path in EmbeddedAssets.paths {
            let onDisk = FileManager.default.contents(atPath: Self.repository.appendingPathComponent(path).path)
            let current = onDisk.map(Array.init) == EmbeddedAssets.file(path)
            #expect(current, "\(path) changed: run scripts/embed-assets")
        }
        let webFiles = try FileManager.default.contentsOfDirectory(atPath: Self.repository.appendingPathComponent("web").path)
        #expect(Set(webFiles.map { "web/\($0)" }).isSubset(of: Set(EmbeddedAssets.paths)), "a web/ file is not embedded: run scripts/embed-assets")
    }

    @Test func theRootRedirectsToTheConsoleWhichIsServedFromTheBinary() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let root = try await client.send(.get, "/")
            #expect(root.status == .found)
            #expect(root.headers[.location] == "/_emu/")
            let health = try await client.send(.get, "/", headers: [.accept: "application/json"])
            #expect(health.json["authEmulator"]?["ready"] == true)
            let page = try await client.send(.get, "/_emu/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.text.contains("console.js"))
            #expect(try await client.send(.get, "/_emu/console.js").headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(try await client.send(.get, "/_emu/missing.js").status == .notFound)
        }
    }

    @Test func unknownRoutesAndBadBodiesGetTheControlAPIsErrorShape() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let unknown = try await client.send(.get, "/_emu/v1/nothing")
            #expect(unknown.status == .notFound)
            #expect(unknown.json["error"]?["code"] == "not_found")
            let wrongMethod = try await client.send(.put, "/_emu/v1/clock")
            #expect(wrongMethod.status == .methodNotAllowed)
            // A browser (which sends Origin) gets the same answer, with CORS headers on it.
            let fromBrowser = try await client.send(.put, "/_emu/v1/clock", headers: [.origin: "http://127.0.0.1:3000"])
            #expect(fromBrowser.status == .methodNotAllowed)
            #expect(fromBrowser.json["error"]?["code"] == "method_not_allowed")
            #expect(fromBrowser.headers[.accessControlAllowOrigin] == "http://127.0.0.1:3000")
            let badJSON = try await client.send(.post, "/_emu/v1/clock/advance", raw: "{seconds:")
            #expect(badJSON.status == .badRequest)
            #expect(badJSON.json["error"]?["message"]?.stringValue?.hasPrefix("malformed JSON body") == true)
            let notObject = try await client.send(.post, "/_emu/v1/snapshots", raw: "[]")
            #expect(notObject.status == .badRequest)
            let huge = try await client.send(.post, "/_emu/v1/tenants", raw: #"{"id":""# + String(repeating: "a", count: 1 << 20) + #""}"#)
            #expect(huge.status == .contentTooLarge)
            let elsewhere = try await client.send(.get, "/somewhere/else")
            #expect(elsewhere.status == .notFound)
            #expect(elsewhere.json["error"]?["code"] == "not_found")
        }
    }

    @Test func corsPreflightAllowsTheSupabaseHeaders() async throws {
        let harness = try Harness()
        let reply = try await harness.run { client in
            try await client.send(.options, "/auth/v1/signup", headers: [
                .origin: "http://localhost:3000", .accessControlRequestMethod: "POST",
                .accessControlRequestHeaders: "apikey, x-client-info, content-type",
            ])
        }
        #expect(reply.status == .noContent || reply.status == .ok)
        #expect(reply.headers[.accessControlAllowOrigin] == "http://localhost:3000")
        #expect(reply.headers[.accessControlAllowHeaders]?.lowercased().contains("apikey") == true)
    }

    @Test func theServerAnswersOverARealSocket() async throws {
        let harness = try Harness()
        try await harness.run(.live) { client in
            let health = try await client.send(.get, "/_emu/v1/health")
            #expect(health.json["status"] == "ok")
            let session = try await client.send(.post, "/auth/v1/token?grant_type=password",
                                                json: ["email": "alice@example.com", "password": "password123"])
            #expect(session.status == .ok)
            #expect(session.json["user"]?["email"] == "alice@example.com")
        }
    }
}

@Suite struct OpenAPIEnumTests {
    @Test func theDocumentedEventTypesAreExactlyTheCoresOnes() async throws {
        let harness = try Harness()
        let document = try await harness.run { try await $0.send(.get, "/_emu/v1/openapi.json") }.json
        let documented = document["components"]?["schemas"]?["Event"]?["properties"]?["type"]?["enum"]?.arrayValue?.compactMap(\.stringValue)
        #expect(Set(documented ?? []) == Set(EventType.allCases.map(\.rawValue)))
        let purposes = document["components"]?["schemas"]?["Message"]?["properties"]?["purpose"]?["enum"]?.arrayValue?.compactMap(\.stringValue)
        #expect(Set(purposes ?? []) == Set(MessagePurpose.allCases.map(\.rawValue)))
    }
}
