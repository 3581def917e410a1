import AuthCore
import Console
import FauxthTesting
import Foundation
import HTTPTypes
import Server
import Testing

/// Deep links: captured from redirects and from messages, and shown on a page instead of followed when
/// a tenant or a browser asks for it.
@Suite struct DeepLinkTests {
    static let authorize = "/_emu/idp/google/authorize?client_id=c&redirect_uri=myapp%3A%2F%2Fcb&response_type=code&state=s1&fauxth_account=alice@example.com"

    @Test func aRedirectToAnAppSchemeBecomesAPageWhenTheBrowserAsks() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let plain = try await client.send(.get, Self.authorize)
            #expect(plain.status == .found)
            #expect(plain.headers[.location]?.hasPrefix("myapp://cb?code=") == true)

            let asked = try await client.send(.get, Self.authorize + "&fauxth_interstitial=1")
            #expect(asked.status == .ok)
            #expect(asked.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(asked.text.contains("xcrun simctl openurl booted &#39;myapp://cb?code="))
            // Quoted twice: the device's shell would cut the URL at its `&` otherwise.
            #expect(asked.text.contains("adb shell &quot;am start -W -a android.intent.action.VIEW -d &#39;myapp://cb?code="))
            #expect(asked.text.contains("<td>state</td><td>s1</td>"))
            #expect(asked.headers[values: .setCookie].contains("fauxth_interstitial=1; Path=/; SameSite=Lax"))
            // The browser's cookie keeps asking on later hops; the link is captured either way.
            let remembered = try await client.send(.get, Self.authorize, headers: [.cookie: "fauxth_interstitial=1"])
            #expect(remembered.status == .ok)
            #expect(try harness.emulator.deepLinks().count == 3)
        }
    }

    @Test func aTenantCanAskForThePageOnEveryRedirect() async throws {
        var seed = try SeedLoader.builtIn()
        let index = try #require(seed.tenants.firstIndex { $0.id == "default" })
        seed.tenants[index].settings["deep_link_interstitial"] = true
        let harness = try Harness(seed: seed)
        try await harness.run { client in
            let start = try await client.send(.get, "/auth/v1/authorize?provider=google&redirect_to=myapp://signed-in&fauxth_account=dana@example.com")
            let providerURL = try #require(start.headers[.location])
            let provider = try #require(URLComponents(string: providerURL))
            let back = try await client.send(.get, provider.percentEncodedPath + "?" + (provider.percentEncodedQuery ?? ""))
            let callbackURL = try #require(back.headers[.location])
            let callback = try #require(URLComponents(string: callbackURL))
            let page = try await client.send(.get, callback.percentEncodedPath + "?" + (callback.percentEncodedQuery ?? ""))
            #expect(page.status == .ok)
            #expect(page.text.contains("myapp://signed-in"))
            #expect(try harness.emulator.deepLinks().first?.source == "callback")
        }
    }

    @Test func anAppSchemeLinkInAMessageIsCaptured() throws {
        let harness = try Harness()
        try harness.emulator.deliver(OutgoingMessage(tenant: "default", channel: .sms, to: "+15555550100", from: "Fauxth",
                                                     text: "Tap myapp://otp?code=123456 to sign in, or see https://example.com/help",
                                                     purpose: .otp, codes: ["123456"]))
        let links = try harness.emulator.deepLinks()
        #expect(links.map(\.url) == ["myapp://otp?code=123456"])
        #expect(links.first?.source == "message" && links.first?.params["code"] == "123456")
    }

    @Test func anHTTPSLinkTheTenantRegisteredAsAnAppsIsADeepLinkToo() async throws {
        var seed = try SeedLoader.builtIn()
        let index = try #require(seed.tenants.firstIndex { $0.id == "default" })
        seed.tenants[index].settings["app_links"] = ["https://links.example.com/auth/**"]
        var env = seed.tenants[index].settings["gotrue_env"]?.objectValue ?? [:]
        env["GOTRUE_URI_ALLOW_LIST"] = "https://links.example.com/**,https://web.example.com/**"
        seed.tenants[index].settings["gotrue_env"] = .object(env)
        let harness = try Harness(seed: seed)
        try await harness.run { client in
            for target in ["https://links.example.com/auth/callback", "https://web.example.com/auth/callback"] {
                let start = try await client.send(.get, "/auth/v1/authorize?provider=google&redirect_to=\(target)&fauxth_account=dana@example.com")
                let providerURL = try #require(start.headers[.location])
                let provider = try #require(URLComponents(string: providerURL))
                let back = try await client.send(.get, provider.percentEncodedPath + "?" + (provider.percentEncodedQuery ?? ""))
                let callbackURL = try #require(back.headers[.location])
                let callback = try #require(URLComponents(string: callbackURL))
                let done = try await client.send(.get, callback.percentEncodedPath + "?" + (callback.percentEncodedQuery ?? ""))
                #expect(done.headers[.location]?.hasPrefix(target + "#access_token=") == true)
            }
            // Only the registered app link was captured; the web page's redirect was not.
            #expect(try harness.emulator.deepLinks().map { String($0.url.prefix(40)) } == ["https://links.example.com/auth/callback#"])
            #expect(harness.emulator.opensApp("https://links.example.com/auth/x?y=1", tenant: "default"))
            #expect(!harness.emulator.opensApp("https://links.example.com/other", tenant: "default"))
        }
    }

    // MARK: Opening links where the app runs (--open-deeplinks)

    @Test func eachOpenerRunsItsCommandWithTheURLIntact() throws {
        let url = "myapp://cb?code=a b&state='s'#x=1&y=$HOME"
        #expect(DeepLinkOpener("simctl")?.command(for: url) == ["xcrun", "simctl", "openurl", "booted", url])
        // adb hands its words to the device's shell: the URL is quoted again for that shell.
        #expect(DeepLinkOpener("adb")?.command(for: url)
                == ["adb", "shell", #"am start -W -a android.intent.action.VIEW -d 'myapp://cb?code=a b&state='\''s'\''#x=1&y=$HOME'"#])
        #expect(DeepLinkOpener(" code --open-url ")?.command(for: url) == ["sh", "-c", #"code --open-url "$1""#, "fauxth-open-deeplink", url])
        #expect(DeepLinkOpener("  ") == nil)
        #expect(DeepLinkOpener.simctl.commandLine(for: "myapp://cb?a=1&b=2") == "xcrun simctl openurl booted 'myapp://cb?a=1&b=2'")
        #expect(DeepLinkOpener.adb.commandLine(for: "myapp://cb?a=1&b=2")
                == #"adb shell "am start -W -a android.intent.action.VIEW -d 'myapp://cb?a=1&b=2'""#)
    }

    @Test func aCommandGetsTheURLAsOneArgumentTheShellNeverParses() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fauxth-opener-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let record = directory.appendingPathComponent("argv").path
        let opener = try #require(DeepLinkOpener("printf '%s\\n' first >\(record); printf '%s\\n'"))
        let url = "myapp://cb?code=1&state=$(touch \(directory.path)/pwned)"
        let outcome = await opener.open(url)
        #expect(outcome.succeeded)
        // `printf` wrote its argument to stdout, which the opener discards; the record shows the command ran.
        #expect(try String(contentsOfFile: record, encoding: .utf8) == "first\n")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("pwned").path))

        let failing = await DeepLinkOpener("echo nope >&2; exit 3")!.open(url)
        #expect(failing.status == 3 && failing.error == "nope" && !failing.succeeded)
    }

    @Test func theControlAPIOpensACapturedLinkOnlyWithTheServersOwnOpener() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fauxth-opener-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let record = directory.appendingPathComponent("url").path
        let harness = try Harness { $0.deepLinkOpener = DeepLinkOpener("printf '%s' >\(record)") }
        try await harness.run { client in
            _ = try await client.send(.get, Self.authorize)
            let link = try #require(try harness.emulator.deepLinks().first)
            let opened = try await client.send(.post, "/_emu/v1/deeplinks/\(link.id)/open", json: ["command": "rm -rf /"])
            #expect(opened.status == .ok)
            #expect(opened.json["succeeded"] == true && opened.json["opener"]?.stringValue == "printf '%s' >\(record)")
            #expect(try String(contentsOfFile: record, encoding: .utf8) == link.url)
            let event = try #require(try harness.emulator.events(type: "deeplink.opened").first)
            #expect(event.detail["deeplink_id"]?.stringValue == link.id && event.detail["succeeded"] == true && event.detail["status"] == 0)
            #expect(try await client.send(.post, "/_emu/v1/deeplinks/nosuch/open").status == .notFound)
            #expect(try await client.send(.get, "/_emu/v1/info").json["open_deeplinks"]?.stringValue == "printf '%s' >\(record)")

            let page = try await client.send(.get, "/_emu/v1/deeplinks/\(link.id)/page")
            #expect(page.status == .ok && page.text.contains("xcrun simctl openurl booted &#39;myapp://cb?code="))
            #expect(try await client.send(.get, "/_emu/v1/deeplinks/nosuch/page").status == .notFound)
        }
        // Without --open-deeplinks the control API refuses, and names the flag.
        let plain = try Harness()
        try await plain.run { client in
            _ = try await client.send(.get, Self.authorize)
            let link = try #require(try plain.emulator.deepLinks().first)
            let refused = try await client.send(.post, "/_emu/v1/deeplinks/\(link.id)/open")
            #expect(refused.status == .conflict && refused.json["error"]?["code"] == "no_opener")
            #expect(refused.json["error"]?["message"]?.stringValue?.contains("--open-deeplinks") == true)
            #expect(try await client.send(.get, "/_emu/v1/info").json["open_deeplinks"] == .null)
        }
    }
}
