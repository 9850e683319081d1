// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation

/// A temporary home for one command test: a plugin folder on EUA_PLUGIN_PATH, its own configuration
/// folders, cache (plugin index) and state, and nothing from the real machine's configuration.
struct PluginSandbox {
    let folder: TemporaryFolder
    let plugins: URL
    var environment: [String: String]

    init() throws {
        folder = try TemporaryFolder("eua-hostile")
        plugins = try folder.folder("plugins")
        environment = [
            "HOME": folder.url.appendingPathComponent("home").path,
            "XDG_CONFIG_HOME": folder.url.appendingPathComponent("config").path,
            "XDG_CONFIG_DIRS": folder.url.appendingPathComponent("xdg").path,
            "XDG_CACHE_HOME": folder.url.appendingPathComponent("cache").path,
            "XDG_STATE_HOME": folder.url.appendingPathComponent("state").path,
            "EUA_MANAGED_CONFIG": folder.url.appendingPathComponent("managed.toml").path,
            "EUA_PLUGIN_PATH": plugins.path, "EUA_ALLOW_TEST_AGENTS": "1",
            "EUA_AGENT": "", "EUA_AGENT_OPTIONS": "", "BROWSER": "", "EUA_LOG_LEVEL": "warning",
        ]
    }

    /// Builds the C fixture with `defines` into the plugin folder.
    @discardableResult
    func plugin(_ defines: [String], name: String = "libmisbehaving.so") throws -> URL {
        try CPluginBuilder.build(defines: defines, name: name, in: plugins)
    }

    /// Writes the user configuration file.
    func configure(_ toml: String) throws {
        let file = folder.url.appendingPathComponent("config/eua/config.toml")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(toml.utf8).write(to: file)
    }

    /// Runs `eua` with `arguments` here; returns its result and how long it ran.
    func run(_ arguments: [String], timeout: TimeInterval = 40) throws -> (result: ProcessResult, seconds: Double) {
        let started = Date()
        let result = try ProcessRunner.run(
            try TestPaths.product("eua"), arguments, environment: environment,
            timeout: timeout)
        return (result, Date().timeIntervalSince(started))
    }

    /// Every file under the sandbox's state folder (where `eua login` saves).
    var savedStateFiles: [String] {
        let state = folder.url.appendingPathComponent("state")
        return (FileManager.default.enumerator(atPath: state.path)?.allObjects as? [String]) ?? []
    }
}
