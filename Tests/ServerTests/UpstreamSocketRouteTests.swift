@testable import Server
import Testing

/// Which WebSocket upgrades are carried to a project's upstream, and where (the sockets themselves are tested
/// end to end in Tests/conformance/test_supabase_upstream.py).
@Suite struct UpstreamSocketRouteTests {
    @Test func theMainPortRoutesServicePathsToTheDefaultProjectOrThePrefixedOne() {
        let route = SupabaseUpstreamSocket.mainPortRoute(defaultProject: "default")
        #expect(route("/realtime/v1/websocket")! == ("default", "/realtime/v1/websocket"))
        #expect(route("/functions/v1/chat")! == ("default", "/functions/v1/chat"))
        #expect(route("/projects/p%201/realtime/v1/websocket")! == ("p 1", "/realtime/v1/websocket"))
        // Fauxth's own paths, and look-alikes of a service, are never upgraded.
        #expect(route("/auth/v1/user") == nil)
        #expect(route("/realtimes/v1/websocket") == nil)
        #expect(route("/realtime/v10") == nil)
        #expect(route("/projects/p/auth/v1/user") == nil)
        #expect(route("/_emu/v1/events") == nil)
    }

    @Test func aProjectPortRoutesItsServicePathsToItself() {
        let route = SupabaseUpstreamSocket.projectPortRoute("mine")
        #expect(route("/realtime/v1/websocket")! == ("mine", "/realtime/v1/websocket"))
        #expect(route("/projects/other/realtime/v1/websocket") == nil)
        #expect(route("/auth/v1/user") == nil)
    }
}
