import Foundation
import Testing
@testable import AuthCore

@Suite struct OutboxTests {
    func send(_ emulator: Emulator, to: String, purpose: MessagePurpose = .verifyEmail, channel: Channel = .email,
              suppressed: String? = nil) throws -> Message {
        try emulator.deliver(OutgoingMessage(tenant: "proj", channel: channel, to: to, from: "noreply@x", subject: "Hi",
                                             text: "Your code is 424242. Open myapp://cb?code=z", html: nil, purpose: purpose,
                                             suppressedReason: suppressed))
    }

    @Test func messagesKeepTheirCodesLinksAndStatus() throws {
        let emulator = try makeEmulator()
        let message = try send(emulator, to: "a@example.com", suppressed: "rate limit")
        #expect(message.codes == ["424242"])
        #expect(message.links == ["myapp://cb?code=z"])
        #expect(message.status == .suppressed)
        #expect(message.reason == "rate limit")
        #expect(try emulator.events(type: "message").map(\.type) == [.messageSuppressed])
    }

    @Test func listingFiltersAndComesNewestFirst() throws {
        let emulator = try makeEmulator()
        let first = try send(emulator, to: "a@example.com")
        let second = try send(emulator, to: "b@example.com", purpose: .resetPassword)
        let third = try send(emulator, to: "A@example.com", channel: .sms)
        #expect(try emulator.messages().map(\.id) == [third.id, second.id, first.id])
        #expect(try emulator.messages(MessageFilter(to: "a@example.com")).map(\.id) == [third.id, first.id])
        #expect(try emulator.messages(MessageFilter(channel: .email)).map(\.id) == [second.id, first.id])
        #expect(try emulator.messages(MessageFilter(purpose: .resetPassword)).map(\.id) == [second.id])
        #expect(try emulator.messages(MessageFilter(list: ListFilter(since: first.id))).map(\.id) == [third.id, second.id])
        #expect(try emulator.deleteMessages() == 3)
        #expect(try emulator.messages().isEmpty)
    }

    @Test func newMessagesArePublishedOnTheFeed() async throws {
        let emulator = try makeEmulator()
        let feed = emulator.feed.subscribe()
        let sent = try send(emulator, to: "live@example.com")
        var iterator = feed.makeAsyncIterator()
        guard case .message(let received)? = await iterator.next() else { Issue.record("no message on the feed"); return }
        #expect(received.id == sent.id)
    }

    @Test func deepLinksAreParsedFromQueryAndFragment() throws {
        let emulator = try makeEmulator()
        let link = try #require(try emulator.captureDeepLink("growbro://auth/callback?code=abc#access_token=t&type=signup",
                                                             tenant: "proj", source: "verify"))
        #expect(link.scheme == "growbro")
        #expect(link.params == ["code": "abc", "access_token": "t", "type": "signup"])
        #expect(try emulator.deepLinks(scheme: "GROWBRO").map(\.id) == [link.id])
        #expect(Emulator.isDeepLink("myapp://x"))
        #expect(!Emulator.isDeepLink("https://example.com"))
        #expect(!Emulator.isDeepLink("javascript:alert(1)") && !Emulator.isDeepLink("mailto:a@example.com"))
    }
}
