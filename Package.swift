// swift-tools-version:6.1
import PackageDescription

// Every target of ours builds in Swift 6 mode with the upcoming features Hummingbird itself uses, so
// imports stay explicit and existentials are spelled `any`; and our nonisolated async functions run on their
// caller's executor (SE-0461), so a call from one of ours to another is not a hop through the event loop's
// queue (docs/internals.md, on where handlers run). Conformances to Hummingbird's protocols keep its `@concurrent`.
let settings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
]

let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let cryptoExtras = Target.Dependency.product(name: "_CryptoExtras", package: "swift-crypto")

let package = Package(
    name: "fauxth",
    // macOS 15: Synchronization's Mutex and Atomic, used throughout, are available from macOS 15 on.
    // iOS: for FauxthClient in an app's test target (the rest of the package is never built for iOS).
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .executable(name: "fauxth", targets: ["fauxth"]),
        // The test helper for XCTest and Swift Testing: Foundation only.
        .library(name: "FauxthClient", targets: ["FauxthClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        // Already in the graph through Hummingbird; named so the server can run its autosave as a Service.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // Already in the graph through Hummingbird; named for the SMTP sink's own listener.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        // Hooks, blocking functions and Lambda triggers are called over HTTP(S); already in the graph through
        // HummingbirdTesting.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.21.0"),
        // A Supabase project's users mirrored into the app's own Postgres (--supabase-db).
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        // A project's WebSocket upgrades (Realtime) accepted and carried to its upstream (--supabase-upstream).
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.0"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // RS256 through the system's OpenSSL 3 when it is there (dlopen'd: no headers needed to build).
        // Linux only: elsewhere there is no libcrypto.so.3 to open, and dlopen is in libSystem.
        .target(name: "CSystemCrypto", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "AuthCore", dependencies: ["CSQLite", "CSystemCrypto", crypto, cryptoExtras], swiftSettings: settings),
        // The fault runner closes and resets connections (NIO's channel and socket options), and lets a held
        // request go when a graceful shutdown starts (ServiceLifecycle).
        .target(name: "HTTPSupport", dependencies: ["AuthCore", hummingbird, .product(name: "NIOCore", package: "swift-nio"),
                                                    .product(name: "NIOPosix", package: "swift-nio"),
                                                    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
                swiftSettings: settings),
        .target(name: "SupabaseAPI", dependencies: ["AuthCore", "HTTPSupport", "IdentityProviders", hummingbird], swiftSettings: settings),
        .target(name: "FirebaseAPI", dependencies: ["AuthCore", "HTTPSupport", "IdentityProviders", hummingbird, crypto, cryptoExtras], swiftSettings: settings),
        // Cognito's SRP works modulo a 3072-bit prime; swift-crypto offers no big-integer arithmetic, and in a
        // debug build Swift's took a second per exponentiation, so a few lines of C do it.
        .target(name: "IdentityProviders", dependencies: ["AuthCore", "HTTPSupport", hummingbird, crypto], swiftSettings: settings),
        .target(name: "CModArith"),
        // Names Swift Concurrency's global enqueue hook at link time, so handlers run on NIO's event loops in
        // a --static-swift-stdlib binary too (ConcurrencyOnEventLoops).
        .target(name: "CExecutorHook"),
        .target(name: "CognitoAPI", dependencies: ["AuthCore", "HTTPSupport", "IdentityProviders", "CModArith", "CSystemCrypto", hummingbird, crypto],
                swiftSettings: settings),
        // openapi.json is compiled in through EmbeddedAssets.swift (scripts/embed-assets), not as a resource.
        // ServiceLifecycle: the event stream and long polls end when a graceful shutdown starts.
        .target(name: "Console", dependencies: ["AuthCore", "HTTPSupport", "IdentityProviders", hummingbird,
                                                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
                exclude: ["openapi.json"], swiftSettings: settings),
        // The app's own messages: an SMTP server and a Twilio-shaped SMS endpoint feeding the outbox.
        .target(name: "Sinks", dependencies: ["AuthCore", "HTTPSupport", hummingbird,
                                              .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                                              .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
                swiftSettings: settings),
        .target(
            name: "Server",
            dependencies: ["AuthCore", "HTTPSupport", "SupabaseAPI", "FirebaseAPI", "CognitoAPI", "IdentityProviders", "Console", "Sinks", hummingbird,
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "UnixSignals", package: "swift-service-lifecycle"), .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"), .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "PostgresNIO", package: "postgres-nio"),
                           .product(name: "HummingbirdCore", package: "hummingbird"), .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                           .product(name: "HummingbirdWSClient", package: "hummingbird-websocket")],
            swiftSettings: settings
        ),
        .executableTarget(
            name: "fauxth",
            dependencies: ["Server", "AuthCore", "Console", "CExecutorHook", hummingbird, .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: settings
        ),
        .target(name: "FauxthClient", swiftSettings: settings),
        // The per-test harness: a fresh emulator through the real application builder.
        .target(
            name: "FauxthTesting",
            dependencies: ["Server", "AuthCore", hummingbird, .product(name: "HummingbirdTesting", package: "hummingbird")],
            swiftSettings: settings
        ),
        .testTarget(name: "AuthCoreTests", dependencies: ["AuthCore", "CSQLite", "CSystemCrypto", crypto], swiftSettings: settings),
        .testTarget(name: "SinksTests", dependencies: ["Sinks", "AuthCore"], swiftSettings: settings),
        .testTarget(name: "SupabaseAPITests", dependencies: ["FauxthTesting", "Server", "AuthCore", "SupabaseAPI", hummingbird], swiftSettings: settings),
        .testTarget(name: "FirebaseAPITests", dependencies: ["FauxthTesting", "Server", "AuthCore", "FirebaseAPI", hummingbird], swiftSettings: settings),
        .testTarget(name: "CognitoAPITests", dependencies: ["FauxthTesting", "Server", "AuthCore", "CognitoAPI", "CSystemCrypto", hummingbird, crypto],
                    swiftSettings: settings),
        .testTarget(
            name: "FauxthClientTests",
            dependencies: ["FauxthClient", "FauxthTesting", "Server", hummingbird, .product(name: "HummingbirdTesting", package: "hummingbird")],
            swiftSettings: settings
        ),
        .testTarget(
            name: "ServerTests",
            dependencies: ["FauxthTesting", "Server", "AuthCore", "Console", "HTTPSupport", hummingbird,
                           .product(name: "HummingbirdTesting", package: "hummingbird"), .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: settings
        ),
    ],
    swiftLanguageModes: [.v6]
)
