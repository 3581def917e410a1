/// The release's version, reported by `/_emu/v1/info` and `--version`. The one place it is written:
/// scripts/release reads it from this line to name the binary it builds, and refuses a tag that differs.
public let fauxthVersion = "0.1.0"
