import AuthCore
import HTTPTypes
@testable import Console
import FauxthTesting
import Foundation
import Testing

/// The text log a tester reads in the terminal: each captured message with its code and link, short lines.
@Suite struct EventLogTests {
    private func lines(_ harness: Harness, during body: @Sendable () async throws -> Void) async throws -> [String] {
        let feed = harness.emulator.feed.subscribe()
        try await body()
        var collected: [String] = []
        for await item in feed {
            if let line = EventLog.text(item) { collected.append(line) }
            if case .event(let event) = item, event.type == .messageSent { break }
        }
        return collected
    }

    @Test func aMessageLineCarriesItsCodeAndItsLinkWithTheTokenCut() async throws {
        let harness = try Harness()
        let printed = try await lines(harness) {
            try await harness.run { client in
                _ = try await client.send(.post, "/auth/v1/signup", json: ["email": "new@example.com", "password": "secret123"], headers: .supabaseClient)
            }
        }
        let message = try #require(printed.first { $0.contains(" message.sent ") })
        let code = try #require(try harness.emulator.messages().first?.codes.first)
        #expect(message.contains(" tenant=default email to=new@example.com purpose=verify_email code=\(code) link=http"))
        #expect(message.contains("/auth/v1/verify?token=") && message.contains("…&type=signup"))
        #expect(message.count < 240)
        #expect(!printed.contains { $0.contains("tenant= ") || $0.hasSuffix("tenant=") })
    }

    /// An event's line: its time, type, tenant and user, then its details by name, nulls left out, long values cut (by
    /// characters: thirty two-byte characters are kept whole).
    @Test func anEventLineHasItsFieldsInOrder() async throws {
        let harness = try Harness()
        let feed = harness.emulator.feed.subscribe()
        let accented = String(repeating: "é", count: 30), token = String(repeating: "t", count: 60)
        let event = try #require(harness.emulator.record(.signInSucceeded, tenant: "default", userId: "u1",
                                                         detail: ["method": "password", "aal": nil, "token": .string(token), "name": .string(accented), "n": 3]))
        var printed: String?
        for await item in feed {
            printed = EventLog.text(item)
            break
        }
        let time = RFC3339.string(from: event.createdAt, fractionalDigits: 3)
        #expect(printed == "\(time) \(EventType.signInSucceeded.rawValue) tenant=default user=u1 method=password n=3 name=\(accented) token=\(token.prefix(24))…")
    }

    @Test func longValuesAreCutAndShortOnesKept() {
        #expect(EventLog.short("abc") == "abc")
        #expect(EventLog.short(String(repeating: "x", count: 100)) == String(repeating: "x", count: 24) + "…")
        #expect(EventLog.shortLink("myapp://cb?code=short&token=" + String(repeating: "t", count: 40) + "&redirect_to=" + String(repeating: "r", count: 30))
                == "myapp://cb?code=short&token=tttttttttttt…&redirect_to=" + String(repeating: "r", count: 30))
    }
}
