// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation

/// A fresh folder (mode 0755) removed when the value is released.
public final class TemporaryFolder: @unchecked Sendable {
    public let url: URL
    public var path: String { url.path }

    public init(_ prefix: String = "eua-test") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755])
    }

    /// A subfolder (mode 0755).
    public func folder(_ name: String) throws -> URL {
        let sub = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: sub, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755])
        return sub
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
