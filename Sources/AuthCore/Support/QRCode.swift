import Foundation

/// A QR code (ISO/IEC 18004), for the `qr_code` SVG that Supabase's MFA enrollment answers with, so an
/// authenticator app (or a test with a barcode reader) can scan the `otpauth://` URI straight off it.
///
/// Only byte mode is used: the URI is arbitrary UTF-8 and one mode keeps the encoder small, at the cost
/// of at most a version or so against a mixed-mode encoder. Everything else follows the standard: for
/// byte-mode input the matrix matches python-qrcode's module for module whenever both pick the same mask.
public struct QRCode: Sendable {
    /// Module grid, row-major; true = dark. Size = 17 + 4 * version.
    public let modules: [[Bool]]
    /// The symbol version, 1...40: the smallest that holds the text at the requested correction.
    public let version: Int
    /// The mask pattern (0...7) applied to the data modules, as written in the format information.
    let mask: Int

    /// How much of the symbol can be damaged and still read: about 7%, 15%, 25% or 30% of codewords.
    public enum ErrorCorrection: Sendable { case low, medium, quartile, high }

    /// Byte-mode encoding of UTF-8 `text`, smallest version (1...40) that fits at `correction` (default
    /// .medium), best mask by the standard ISO/IEC 18004 penalty rules.
    /// - Throws: `QRCodeError.tooLong` when even version 40 cannot hold the text.
    public init(_ text: String, correction: ErrorCorrection = .medium) throws {
        try self.init(text, correction: correction, forcedMask: nil)
    }

    /// The designated initializer; `forcedMask` skips the penalty evaluation so a test can compare the
    /// rest of the symbol with another encoder that picked a different mask.
    init(_ text: String, correction: ErrorCorrection, forcedMask: Int?) throws {
        let bytes = Array(text.utf8)
        guard let version = QRBlockLayout.smallestVersion(forBytes: bytes.count, correction: correction) else {
            throw QRCodeError.tooLong
        }
        let layout = QRBlockLayout(version: version, correction: correction)
        let codewords = layout.interleaved(QRBits.dataCodewords(bytes, version: version, capacity: layout.dataCodewords))
        var base = QRMatrix(version: version)
        base.place(codewords)
        let chosen = forcedMask.map { base.masked($0, correction: correction) } ?? base.bestMasked(correction: correction)
        self.modules = chosen.dark
        self.version = version
        self.mask = chosen.mask
    }

    /// An SVG document: a white background, one path of dark modules, a 4-module quiet zone, viewBox in
    /// modules, `shape-rendering="crispEdges"`, width/height attributes given by `moduleSize` (default 4).
    ///
    /// The viewBox is in modules so the document scales without blurring; each horizontal run of dark
    /// modules is one `M x,y h w v 1 h -w z` subpath, which keeps the path short and trivially parsable.
    public func svg(moduleSize: Int = 4) -> String {
        let quietZone = 4
        let extent = modules.count + 2 * quietZone
        let pixels = extent * max(1, moduleSize)
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(pixels)\" height=\"\(pixels)\" "
            + "viewBox=\"0 0 \(extent) \(extent)\" shape-rendering=\"crispEdges\">"
            + "<rect width=\"\(extent)\" height=\"\(extent)\" fill=\"#ffffff\"/>"
            + "<path fill=\"#000000\" d=\"\(pathData(offset: quietZone))\"/></svg>"
    }

    /// One subpath per horizontal run of dark modules, shifted by `offset` for the quiet zone.
    func pathData(offset: Int) -> String {
        var path = ""
        for (y, row) in modules.enumerated() {
            var x = 0
            while x < row.count {
                guard row[x] else { x += 1; continue }
                let start = x
                while x < row.count && row[x] { x += 1 }
                path += "M\(start + offset),\(y + offset)h\(x - start)v1h-\(x - start)z"
            }
        }
        return path
    }
}

/// Why a QR code could not be built.
public enum QRCodeError: Error {
    /// The text needs more than version 40 holds at the requested error correction.
    case tooLong
}

extension QRCode.ErrorCorrection {
    /// Row of the block tables, in ascending strength.
    var index: Int {
        switch self {
        case .low: 0
        case .medium: 1
        case .quartile: 2
        case .high: 3
        }
    }

    /// The two format-information bits, which the standard does not assign in order of strength.
    var formatBits: Int {
        switch self {
        case .low: 1
        case .medium: 0
        case .quartile: 3
        case .high: 2
        }
    }
}
