// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// Loading the browser plugins must not start a browser each time: `--version` runs once, then the
/// version comes from `$XDG_CACHE_HOME/eua/browser-versions.json` while the binary is unchanged.
@Suite("browser version cache", .onOwnThreads, .timeLimit(.minutes(1)))
struct BrowserVersionCacheTests {
    struct Listing: Decodable {
        struct Agent: Decodable {
            var id: String
            var version: String?
        }
        var agents: [Agent]
    }

    @Test("eua agents runs a browser's --version once; the next runs read the cache; a changed binary is asked again")
    func versionRunsOnce() throws {
        let folder = try TemporaryFolder()
        let bin = try folder.folder("bin")
        let log = folder.url.appendingPathComponent("version-calls")
        let brave = bin.appendingPathComponent("brave-browser")
        func writeBrowser(_ version: String) throws {
            try Data("#!/bin/sh\necho called >> '\(log.path)'\necho 'Brave Browser \(version) built for tests'\n".utf8)
                .write(to: brave)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: brave.path)
        }
        try writeBrowser("1.70.123")
        let environment = [
            "PATH": bin.path + ":/usr/bin:/bin", "HOME": folder.path,
            "XDG_CACHE_HOME": folder.url.appendingPathComponent("cache").path,
            "XDG_DATA_HOME": folder.url.appendingPathComponent("data").path,
            "XDG_DATA_DIRS": folder.url.appendingPathComponent("data-dirs").path,
            "XDG_CONFIG_HOME": folder.url.appendingPathComponent("config").path,
            "EUA_PLUGIN_PATH": "",
        ]
        func braveVersion() throws -> String? {
            let result = try ProcessRunner.run(
                try TestPaths.product("eua"), ["agents", "--json"],
                environment: environment, replacingEnvironment: true)
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONDecoder().decode(Listing.self, from: Data(result.stdout.utf8))
                .agents.first { $0.id == "brave-browser" }?.version
        }
        func calls() -> Int {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").count
        }
        #expect(try braveVersion() == "1.70.123")
        #expect(calls() == 1)
        #expect(try braveVersion() == "1.70.123")
        #expect(try braveVersion() == "1.70.123")
        #expect(calls() == 1, "later loads read the cache instead of starting the browser")

        try writeBrowser("1.71.5")
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: brave.path)
        #expect(try braveVersion() == "1.71.5", "a changed binary is asked again")
        #expect(calls() == 2)
    }
}
