import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// The `/emulator/auth/handler` sign-in widget and `createAuthUri` with a provider: the state carried
/// through the provider is signed and lives ten minutes of emulator time, each app platform gets its
/// own deep link, and a `sessionId` only redeems codes of the provider it was made for.
@Suite struct ProviderWidgetTests {
    /// Starts the widget for Google and lets the fake provider pick `email`; answers where it came back to.
    func throughGoogle(_ client: Client, _ widget: String, email: String = "pat@example.com") async throws -> String {
        let started = try await client.send(.get, "/emulator/auth/handler?apiKey=k&providerId=google.com&eventId=e7&" + widget)
        #expect(started.status == .found)
        let authorize = try #require(started.headers[.location])
        #expect(queryItems(authorize)["client_id"] == "fauxth-firebase-p")
        let back = try await client.send(.get, try pathAndQuery(authorize) + "&fauxth_account=" + email)
        return try #require(back.headers[.location])
    }

    @Test func theStateIsSignedAndExpiresWithTheEmulatorClock() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let callback = try await throughGoogle(client, "appName=a&authType=signInViaRedirect&redirectUrl=http://localhost/app")
            let state = try #require(queryItems(callback)["state"])
            let tampered = try await client.send(.get, try pathAndQuery(callback).replacingOccurrences(of: state, with: state.dropLast(2) + "AA"))
            #expect(tampered.status == .badRequest)
            harness.emulator.clock.advance(by: 601)
            let late = try await client.send(.get, try pathAndQuery(callback))
            #expect(late.status == .badRequest && late.text.contains("expired"))
        }
    }

    @Test func eachPlatformGetsItsOwnDeepLinkAndItIsCaptured() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            // iOS without a client id: the app's Firebase app id as the scheme.
            let ios = try await client.send(.get, try pathAndQuery(try await throughGoogle(client, "ibi=com.example.ios&appId=1:123:ios:abc")))
            let link = try #require(ios.headers[.location])
            #expect(link.hasPrefix("app-1-123-ios-abc://firebaseauth/link?deep_link_id="))
            // iOS with neither: the bundle id, and Google's host.
            let bare = try await client.send(.get, try pathAndQuery(try await throughGoogle(client, "ibi=com.example.ios")))
            #expect(bare.headers[.location]?.hasPrefix("com.example.ios://google/link?deep_link_id=") == true)
            let android = try await client.send(.get, try pathAndQuery(try await throughGoogle(client, "apn=com.example.android")))
            #expect(android.status == .seeOther)
            let intent = try #require(android.headers[.location])
            #expect(intent.hasPrefix("intent://firebase.auth/#Intent;scheme=genericidp;package=com.example.android;S.authType=signInViaRedirect;S.eventId=e7;"))
            let captured = try harness.emulator.deepLinks()
            #expect(captured.map(\.url) == [intent, bare.headers[.location] ?? "", link])
            #expect(captured.allSatisfy { $0.source == "auth_handler" && $0.tenant == "p" })
            // The link the SDK gets signs in through signInWithIdp.
            let urlResponse = try #require(queryItems(queryItems(link)["deep_link_id"] ?? "")["link"])
            let signedIn = try await client.send(.post, accounts("signInWithIdp"), json: ["requestUri": .string(urlResponse), "returnSecureToken": true])
            #expect(signedIn.status == .ok && signedIn.json["email"] == "pat@example.com")
        }
    }

    @Test func aSessionIdRedeemsOnlyCodesOfItsOwnProvider() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let created = try await client.send(.post, accounts("createAuthUri"), json: ["providerId": "google.com", "continueUri": "http://localhost/cb"])
            #expect(created.status == .ok)
            let sessionId = try #require(created.json["sessionId"]?.stringValue)
            let back = try await client.send(.get, try pathAndQuery(try #require(created.json["authUri"]?.stringValue)) + "&fauxth_account=lee@example.com")
            let location = try #require(back.headers[.location])
            let asApple = try await client.send(.post, accounts("signInWithIdp"), json: [
                "requestUri": .string(location), "postBody": "providerId=apple.com", "sessionId": .string(sessionId), "returnSecureToken": true])
            #expect(asApple.status == .badRequest && errorMessage(asApple)?.hasPrefix("INVALID_IDP_RESPONSE") == true)
            let missing = try await client.send(.post, accounts("createAuthUri"), json: ["providerId": "google.com"])
            #expect(errorMessage(missing) == "MISSING_CONTINUE_URI")
            let signedIn = try await client.send(.post, accounts("signInWithIdp"), json: [
                "requestUri": .string(location), "sessionId": .string(sessionId), "returnSecureToken": true])
            #expect(signedIn.status == .ok && signedIn.json["email"] == "lee@example.com" && signedIn.json["isNewUser"] == true)
        }
    }
}
