import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// A password sign-in's writes and its event go to the store's journal (`Database.deferWrite`). With nothing else
/// taking the store, the server's event loops make the journal within about a millisecond, so the live feed (the
/// console, the terminal log, a test waiting for an event) hears of the sign-in without another request.
@Suite struct JournalFlushTests {
    @Test func aSignInReachesTheFeedWithNoOtherRequest() async throws {
        let harness = try Harness()
        let feed = harness.emulator.feed.subscribe()
        try await harness.run { client in
            let reply = try await client.send(.post, "/auth/v1/token?grant_type=password",
                                              json: ["email": "alice@example.com", "password": "password123"], headers: .supabaseClient)
            #expect(reply.status == .ok)
        }
        // Bounded: the journal is due after 1 ms; a loaded machine gets 10 s.
        let heard = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await item in feed { if case .event(let event) = item, event.type == .signInSucceeded { return true } }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(heard)
    }
}
