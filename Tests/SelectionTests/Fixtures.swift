// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
@testable import ExternalUserAgentCore
import ExternalUserAgentTesting
import Foundation

/// Real plugins, compiled from `Tests/Fixtures/misbehaving_plugin.c` and loaded through dlopen, once per run.
enum TestPlugins {
    private static let built: Result<(TemporaryFolder, PluginCatalog), any Error> = Result {
        let folder = try TemporaryFolder("eua-selection-plugins")
        let variants: [(String, [String])] = [
            ("webview", ["EMBEDDED"]),
            ("firefox", ["KIND=\"externalBrowser\"", "AGENT_VERSION=\"128.0.3\""]),
            ("chromium", ["KIND=\"externalBrowser\"", "AGENT_VERSION=\"125.0.6422.60\""]),
            ("oldweb", ["KIND=\"externalBrowser\""]),
            (
                "offline",
                ["KIND=\"externalBrowser\"", "UNAVAILABLE=\"no display (DISPLAY and WAYLAND_DISPLAY are unset)\""]
            ),
            ("fake", []),
            ("tab", ["KIND=\"inAppBrowserTab\""]),
            ("typist", ["KIND=\"manual\""]),
        ]
        for (id, defines) in variants {
            _ = try CPluginBuilder.build(
                defines: defines + ["PLUGIN_ID=\"\(id)\""], name: "lib\(id).so", in: folder.url)
        }
        let catalog = PluginLoader(searchPath: PluginSearchPath(folders: [folder.path])).load()
        guard catalog.failures.isEmpty else { throw TestSupportError("fixture plugins refused: \(catalog.failures)") }
        return (folder, catalog)
    }

    /// The catalog: webview (embeddedWebView), firefox 128.0.3, chromium 125.0.6422.60, oldweb (no version),
    /// offline (unavailable), fake (testDouble), tab (inAppBrowserTab), typist (manual).
    static func catalog() throws -> PluginCatalog { try built.get().1 }
}

/// Configuration files and environment for one test, all in a temporary folder.
struct Layers {
    var system: String?
    var user: String?
    var managed: String?
    var environment: [String: String] = [:]
    var code = CodeConfiguration()

    /// The folder that was written, and the sources pointing into it.
    func sources(in folder: TemporaryFolder) throws -> ConfigurationSources {
        func write(_ text: String?, _ path: String) throws -> String {
            let url = folder.url.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o755])
            if let text { try Data(text.utf8).write(to: url) }
            try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
            return url.path
        }
        _ = try write(system, "xdg/eua/config.toml")
        _ = try write(user, "home/.config/eua/config.toml")
        let managedPath = try write(managed, "etc/managed.toml")
        var environment = self.environment
        environment["XDG_CONFIG_DIRS"] = folder.url.appendingPathComponent("xdg").path
        environment["HOME"] = folder.url.appendingPathComponent("home").path
        return .standard(environment: environment, managedFile: managedPath)
    }

    func configuration() throws -> Configuration {
        let folder = try TemporaryFolder("eua-layers")
        return try Configuration.load(sources: try sources(in: folder), code: code)
    }

    func report(_ catalog: PluginCatalog, registered: [AgentCandidate] = []) throws -> SelectionReport {
        AgentSelection.evaluate(
            candidates: AgentSelection.candidates(catalog: catalog, registered: registered),
            configuration: try configuration())
    }
}

extension SelectionReport {
    func verdict(_ id: String) -> CandidateVerdict? { verdicts.first { $0.id == id } }
}
