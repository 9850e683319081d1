// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentTesting
import Foundation
import InMemoryLogging
import Logging
import Testing

/// Every way a plugin can be bad gets its own clear error, and never stops the others loading.
@Suite("Plugin loader", .onOwnThreads, .timeLimit(.minutes(1)))
struct PluginLoaderTests {
    /// Loads exactly `folders` and returns the catalog.
    func load(_ folders: [URL], logger: Logger = Logger(label: "test")) -> PluginCatalog {
        PluginLoader(searchPath: PluginSearchPath(folders: folders.map(\.path)), logger: logger).load()
    }

    func onlyFailure(_ catalog: PluginCatalog, path: URL) throws -> ExternalUserAgentError {
        #expect(catalog.failures.count == 1, "\(catalog.failures)")
        let failure = try #require(catalog.failures.first)
        #expect(failure.path == path.path)
        return failure.error
    }

    @Test("the built plugins load: headless (testDouble) and the C example, with their paths")
    func builtPluginsLoad() throws {
        let catalog = try BuiltPlugins.catalog()
        let headless = try #require(catalog.agent(id: "headless"))
        #expect(headless.descriptor.kind == .testDouble)
        #expect(headless.descriptor.path?.hasSuffix("/libEUAHeadless.so") == true)
        let example = try #require(catalog.agent(id: "example-c"))
        #expect(example.descriptor.path?.hasSuffix("/libEUAExampleC.so") == true)
        #expect(catalog.failures.isEmpty, "\(catalog.failures)")
    }

    @Test("a text file named lib*.so is not loadable")
    func notELF() throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("libX.so")
        try Data("just some text\n".utf8).write(to: file)
        let error = try onlyFailure(load([folder.url]), path: file)
        #expect(error.code == .pluginNotLoadable)
        #expect(error.message.contains("not a loadable shared library"))
        #expect(error.message.contains(folder.path), "says where to remove it from")
    }

    @Test("a shared library without the entry symbol")
    func entryMissing() throws {
        let folder = try TemporaryFolder()
        let lib = try CPluginBuilder.build(defines: ["NO_ENTRY"], name: "libnoentry.so", in: folder.url)
        let error = try onlyFailure(load([folder.url]), path: lib)
        #expect(error.code == .pluginEntryMissing)
        #expect(error.message.contains("eua_plugin_entry_v1"))
    }

    @Test("a plugin for a future ABI major version (entry v2 only)")
    func entryV2() throws {
        let folder = try TemporaryFolder()
        let lib = try CPluginBuilder.build(defines: ["ENTRY_V2"], name: "libv2.so", in: folder.url)
        let error = try onlyFailure(load([folder.url]), path: lib)
        #expect(error.code == .pluginEntryMissing)
        #expect(error.message.contains("ABI 2"))
    }

    @Test("a table that claims another ABI version")
    func wrongABI() throws {
        let folder = try TemporaryFolder()
        let lib = try CPluginBuilder.build(defines: ["WRONG_ABI"], name: "libwrongabi.so", in: folder.url)
        let error = try onlyFailure(load([folder.url]), path: lib)
        #expect(error.code == .pluginABIMismatch)
        #expect(error.message.contains("ABI 2"))
    }

    @Test("a table smaller than the fields the host needs")
    func smallTable() throws {
        let folder = try TemporaryFolder()
        let lib = try CPluginBuilder.build(defines: ["SMALL_TABLE"], name: "libsmall.so", in: folder.url)
        let error = try onlyFailure(load([folder.url]), path: lib)
        #expect(error.code == .pluginTableTooSmall)
        #expect(error.message.contains("8 bytes"))
    }

    @Test("an entry that returns NULL")
    func nullEntry() throws {
        let folder = try TemporaryFolder()
        let lib = try CPluginBuilder.build(defines: ["NULL_ENTRY"], name: "libnull.so", in: folder.url)
        let error = try onlyFailure(load([folder.url]), path: lib)
        #expect(error.code == .pluginNotLoadable)
        #expect(error.message.contains("NULL"))
    }

    @Test("a description that is not JSON")
    func badJSON() throws {
        let folder = try TemporaryFolder()
        let lib = try CPluginBuilder.build(defines: ["BAD_JSON"], name: "libbadjson.so", in: folder.url)
        let error = try onlyFailure(load([folder.url]), path: lib)
        #expect(error.code == .pluginDescriptionInvalid)
        #expect(error.message.contains("this is { not json"))
    }

    @Test("a duplicate plugin id: the first found wins, the later one is reported")
    func duplicateID() throws {
        let folder = try TemporaryFolder()
        let first = try CPluginBuilder.build(defines: [], name: "libdup.so", in: try folder.folder("a"))
        let second = try CPluginBuilder.build(defines: [], name: "libdup.so", in: try folder.folder("b"))
        let catalog = load([first.deletingLastPathComponent(), second.deletingLastPathComponent()])
        #expect(catalog.agent(id: "misbehaving")?.descriptor.path == first.path)
        let error = try onlyFailure(catalog, path: second)
        #expect(error.code == .pluginDuplicateID)
        #expect(error.message.contains(first.path))
    }

    @Test("a world-writable plugin file is refused")
    func worldWritableFile() throws {
        let folder = try TemporaryFolder()
        let lib = folder.url.appendingPathComponent("libEUAHeadless.so")
        try FileManager.default.copyItem(at: try TestPaths.product("libEUAHeadless.so"), to: lib)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: lib.path)
        let error = try onlyFailure(load([folder.url]), path: lib)
        #expect(error.code == .pluginInsecurePermissions)
        #expect(error.message.contains("chmod go-w"))
    }

    @Test("a plugin in a world-writable folder is refused")
    func worldWritableFolder() throws {
        let folder = try TemporaryFolder()
        let open = try folder.folder("open")
        let lib = try CPluginBuilder.build(defines: [], name: "libok.so", in: open)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: open.path)
        let error = try onlyFailure(load([open]), path: lib)
        #expect(error.code == .pluginInsecurePermissions)
        #expect(error.message.contains("folder"))
    }

    @Test("bad plugins do not stop good ones in the same folder")
    func badBesideGood() throws {
        let folder = try TemporaryFolder()
        try Data("junk".utf8).write(to: folder.url.appendingPathComponent("liba-junk.so"))
        _ = try CPluginBuilder.build(defines: [], name: "libgood.so", in: folder.url)
        let catalog = load([folder.url])
        #expect(catalog.agent(id: "misbehaving") != nil)
        #expect(catalog.failures.count == 1)
    }

    @Test("a plugin whose start never calls back: the session still times out, and cancel still works")
    func neverCallsBack() async throws {
        let folder = try TemporaryFolder()
        _ = try CPluginBuilder.build(defines: ["NEVER_ANSWERS"], name: "libsilent.so", in: folder.url)
        let entry = try #require(load([folder.url]).agent(id: "misbehaving"))

        let timed = ExternalUserAgentSession(
            agent: entry.makeAgent(dismissGrace: .milliseconds(100)), receiver: FakeRedirectReceiver(),
            configuration: .init(expectedState: "s", timeout: .milliseconds(200)))
        await #expect { try await timed.run { $0 } } throws: { ($0 as? ExternalUserAgentError)?.code == .timedOut }

        let cancelled = ExternalUserAgentSession(
            agent: entry.makeAgent(dismissGrace: .milliseconds(100)), receiver: FakeRedirectReceiver(),
            configuration: .init(expectedState: "s", timeout: nil))
        let running = Task { try await cancelled.run { $0 } }
        while cancelled.redirectURI == nil { try await Task.sleep(for: .milliseconds(5)) }
        cancelled.cancel()
        await #expect { try await running.value } throws: { ($0 as? ExternalUserAgentError)?.code == .programCanceled }
    }

    @Test("a plugin that calls back twice: the second terminal event is ignored and logged")
    func callsBackTwice() async throws {
        let folder = try TemporaryFolder()
        _ = try CPluginBuilder.build(defines: ["ANSWERS_TWICE"], name: "libtwice.so", in: folder.url)
        let logs = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in logs }
        logger.logLevel = .trace
        let entry = try #require(load([folder.url], logger: logger).agent(id: "misbehaving"))
        let session = ExternalUserAgentSession(
            agent: entry.makeAgent(), receiver: FakeRedirectReceiver(),
            configuration: .init(expectedState: "s", timeout: .seconds(5)))
        await #expect { try await session.run { $0 } } throws: {
            ($0 as? ExternalUserAgentError)?.code == .userCanceled
        }
        // The session completes on the first terminal event; the plugin's late events come on its own
        // thread, possibly after `run` has returned here, so wait for them (bounded).
        var warnings: [String] = []
        for _ in 0..<200 {
            warnings = logs.entries.filter { $0.level == .warning }.map(\.message.description)
            if warnings.count >= 2 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(warnings.contains { $0.contains("second terminal event") || $0.contains("after its terminal event") })
        #expect(warnings.count >= 2, "both late events are logged: \(warnings)")
    }

    @Test("the standard search path: executable folder, EUA_PLUGIN_PATH, XDG data folders, installed folder")
    func standardSearchPath() {
        let path = PluginSearchPath.standard(environment: [
            "EUA_PLUGIN_PATH": "/a:/b::/c", "XDG_DATA_HOME": "/home/u/data",
            "XDG_DATA_DIRS": "/opt/share:relative:/usr/share",
        ])
        let exe = PluginSearchPath.executableDirectory()!
        #expect(
            path.folders == [
                exe, "/a", "/b", "/c", "/home/u/data/eua/plugins", "/opt/share/eua/plugins",
                "/usr/share/eua/plugins", PluginSearchPath.installedFolder(executableFolder: exe),
            ])
        let defaults = PluginSearchPath.standard(environment: ["HOME": "/home/u"])
        #expect(
            defaults.folders.dropFirst().prefix(3) == [
                "/home/u/.local/share/eua/plugins",
                "/usr/local/share/eua/plugins", "/usr/share/eua/plugins",
            ])
        #expect(PluginSearchPath.installedFolder(executableFolder: "/usr/local/bin") == "/usr/local/lib/eua/plugins")
        #expect(
            PluginSearchPath.installedFolder(executableFolder: "/usr/lib/eua") == "/usr/lib/eua/plugins",
            "eua installed in <prefix>/lib/eua")
    }

    @Test("an embedded web-view agent loads with its kind (the selection policy, not the loader, refuses it)")
    func agentKinds() throws {
        let folder = try TemporaryFolder()
        _ = try CPluginBuilder.build(
            defines: ["EMBEDDED", "PLUGIN_ID=\"webview\""], name: "libwebview.so", in: folder.url)
        let catalog = load([folder.url])
        #expect(catalog.agent(id: "webview")?.descriptor.kind == .embeddedWebView)
    }

    @Test("a plugin that needs an installed eua's Swift runtime library is refused here, before dlopen, saying why")
    func installedRuntimePlugin() throws {
        // This test process runs on the toolchain's Swift runtime, as an app built with SwiftPM does. A stand-in
        // for the installed runtime library (same name, no code) makes a plugin that needs it, as an installed
        // eua's own plugins do; opened, the real one would be a second Swift runtime in the process.
        let runtime = try TemporaryFolder()
        let compiler = try #require(ProcessRunner.which("cc") ?? ProcessRunner.which("clang"))
        let made = try ProcessRunner.run(
            compiler,
            [
                "-shared", "-fPIC", "-Wl,-soname,libeua-swift.so.0", "-o",
                runtime.url.appendingPathComponent("libeua-swift.so.0").path,
                "-x", "c", "/dev/null",
            ])
        #expect(made.status == 0, "\(made.stderr)")
        let folder = try TemporaryFolder()
        let lib = try CPluginBuilder.build(
            defines: ["PLUGIN_ID=\"installed\""], name: "libinstalled.so", in: folder.url,
            linking: ["-Wl,--no-as-needed", "-L", runtime.path, "-l:libeua-swift.so.0", "-Wl,-rpath," + runtime.path])
        let error = try onlyFailure(load([folder.url]), path: lib)
        #expect(error.code == .pluginNotLoadable)
        #expect(error.message.contains("libeua-swift.so.0") && error.message.contains("another Swift runtime"))
        #expect(error.message.contains(folder.path), "says which folder to leave out")
        #expect(dlopen("libeua-swift.so.0", RTLD_LAZY | RTLD_NOLOAD) == nil, "never opened")
        // Refused for this program's runtime, not for the file: the shared plugin index does not record it.
        let cache = try TemporaryFolder()
        let index = PluginIndexFile(path: cache.path + "/plugin-index")
        let indexed = PluginLoader(searchPath: PluginSearchPath(folders: [folder.path]), index: index)
            .load(offering: ["installed"])
        #expect(indexed.failures.count == 1)
        let recorded = (try? String(contentsOfFile: index.path, encoding: .utf8)) ?? ""
        #expect(!recorded.contains(lib.path), "\(recorded)")

        // The same plugin without that need loads.
        let plain = try TemporaryFolder()
        _ = try CPluginBuilder.build(defines: ["PLUGIN_ID=\"installed\""], name: "libinstalled.so", in: plain.url)
        #expect(load([plain.url]).agent(id: "installed") != nil)
    }
}
