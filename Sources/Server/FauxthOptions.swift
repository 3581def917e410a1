import AuthCore
import Console
import Foundation

/// Everything the application is built from. The CLI fills it from flags; tests build it directly
/// (frozen clock, seeded generator, an in-code seed).
public struct FauxthOptions: Sendable {
    public var host: String
    public var port: Int
    public var seed: Seed
    public var clock: EmulatorClock
    public var generator: Generator
    public var passwordHasher: PasswordHasher
    /// Loaded at start when it exists; saved on shutdown and every `autosave` seconds.
    public var snapshotPath: String?
    public var autosaveSeconds: Int?
    /// Serve the console from this folder instead of the embedded copy.
    public var webRoot: String?

    public init(host: String = "127.0.0.1", port: Int = 9099, seed: Seed = Seed(), clock: EmulatorClock = EmulatorClock(),
                generator: Generator = Generator(), passwordHasher: PasswordHasher = PasswordHasher(),
                snapshotPath: String? = nil, autosaveSeconds: Int? = nil, webRoot: String? = nil) {
        self.host = host; self.port = port; self.seed = seed; self.clock = clock; self.generator = generator
        self.passwordHasher = passwordHasher; self.snapshotPath = snapshotPath; self.autosaveSeconds = autosaveSeconds
        self.webRoot = webRoot
    }
}

/// Seeds as the CLI assembles them.
public enum SeedLoader {
    /// The seed compiled into the binary (`seed/default.json`).
    public static func builtIn() throws -> Seed {
        try Seed.parse(Data(Console.EmbeddedAssets.file("seed/default.json") ?? []), file: "seed/default.json (built in)")
    }

    /// The built-in seed (unless `noDefault`) with each file's tenants added in order.
    public static func load(files: [String], noDefault: Bool) throws -> Seed {
        var seed = noDefault ? Seed() : try builtIn()
        for file in files { seed = seed.merged(with: try Seed.load(path: file)) }
        return seed
    }
}
