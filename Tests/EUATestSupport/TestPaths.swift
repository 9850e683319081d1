// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation

/// Where the tests find the package's sources and built products.
public enum TestPaths {
    /// The package's root folder.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The folder of the running test executable: SwiftPM's build products folder,
    /// where `swift build` puts `eua` and the plugin libraries.
    public static var productsFolder: URL {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
    }

    /// A built product (`eua`, `libEUAHeadless.so`); fails clearly when `swift build` has not made it.
    public static func product(_ name: String) throws -> URL {
        let url = productsFolder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw TestSupportError(
                "\(url.path) does not exist: run 'swift build' before 'swift test' (scripts/test does)")
        }
        return url
    }

    /// The folder holding `eua_plugin.h`.
    public static var pluginHeaderFolder: URL {
        packageRoot.appendingPathComponent("Sources/CExternalUserAgentPlugin/include")
    }

    /// A fixture file under `Tests/Fixtures`.
    public static func fixture(_ name: String) -> URL {
        packageRoot.appendingPathComponent("Tests/Fixtures").appendingPathComponent(name)
    }
}

/// A failure in the test set-up itself, with what to do.
public struct TestSupportError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
