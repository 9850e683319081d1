import EUATestSupport
import ExternalUserAgent
import Foundation
import Testing

/// `describe()` calls run one after another on one long-lived worker thread; a call that overruns wedges
/// that worker, and the calls after it (queued or later) still run, each with its full deadline.
@Suite("Plugin worker", .timeLimit(.minutes(1)))
struct PluginWorkerTests {
    static let callTimeout = Duration.milliseconds(400)
    static let slack = Duration.milliseconds(1500)

    @Test("two describe() calls that never return and three fine plugins: the fine ones load, the two are refused")
    func twoHangAmongFine() throws {
        let folder = try TemporaryFolder()
        let hung = try ["liba-hung.so", "libc-hung.so"].map {
            try CPluginBuilder.build(defines: ["DESCRIBE_HANGS", "PLUGIN_ID=\"\($0)\""], name: $0, in: folder.url)
        }
        for (index, name) in ["libb-fine.so", "libd-fine.so", "libe-fine.so"].enumerated() {
            _ = try CPluginBuilder.build(defines: ["PLUGIN_ID=\"fine\(index)\""], name: name, in: folder.url)
        }
        let started = ContinuousClock.now
        let catalog = PluginLoader(searchPath: PluginSearchPath(folders: [folder.path]), callTimeout: Self.callTimeout).load()
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < Self.callTimeout * 2 + Self.slack, "took \(elapsed)")
        #expect(catalog.plugins.map(\.description.id) == ["fine0", "fine1", "fine2"])
        #expect(catalog.failures.map(\.path) == hung.map(\.path))
        for failure in catalog.failures {
            #expect(failure.error.message.contains("describe() did not return within"), "\(failure.error.message)")
        }
    }

    @Test("three describe() calls that never return, on two loader threads: each costs at most two deadlines")
    func threeHung() throws {
        let folder = try TemporaryFolder()
        for name in ["liba-hung.so", "libb-hung.so", "libc-hung.so"] {
            _ = try CPluginBuilder.build(defines: ["DESCRIBE_HANGS", "PLUGIN_ID=\"\(name)\""], name: name, in: folder.url)
        }
        _ = try CPluginBuilder.build(defines: ["PLUGIN_ID=\"fine\""], name: "libd-fine.so", in: folder.url)
        let started = ContinuousClock.now
        let catalog = PluginLoader(searchPath: PluginSearchPath(folders: [folder.path]), callTimeout: Self.callTimeout).load()
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < Self.callTimeout * 6 + Self.slack, "took \(elapsed)")
        #expect(catalog.plugins.map(\.description.id) == ["fine"])
        #expect(catalog.failures.count == 3)
    }

    @Test("after a describe() that never returns, the next plugin loaded gets a fresh worker")
    func freshWorkerAfterHang() throws {
        let folder = try TemporaryFolder()
        let hung = try CPluginBuilder.build(defines: ["DESCRIBE_HANGS"], name: "libhung.so", in: folder.url)
        let fine = try CPluginBuilder.build(defines: ["PLUGIN_ID=\"fine\""], name: "libfine.so", in: folder.url)
        let loader = PluginLoader(searchPath: PluginSearchPath(folders: []), callTimeout: Self.callTimeout)
        var catalog = PluginCatalog()
        loader.load(file: hung.path, into: &catalog)
        let started = ContinuousClock.now
        loader.load(file: fine.path, into: &catalog)
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < Self.callTimeout, "the fine plugin waited behind the hung one: \(elapsed)")
        #expect(catalog.plugins.map(\.description.id) == ["fine"])
        #expect(catalog.failures.map(\.path) == [hung.path])
    }

    @Test("slow describe() calls, each within the deadline but together over it, are all accepted")
    func slowCallsQueuedTogether() throws {
        let folder = try TemporaryFolder()
        // Five calls of 200 ms one after another take 1 s on one worker, over the 400 ms deadline: each
        // call's deadline counts from when it starts, so none is refused.
        for index in 0..<5 {
            _ = try CPluginBuilder.build(defines: ["DESCRIBE_SLEEP_MS=200", "PLUGIN_ID=\"slow\(index)\""],
                                         name: "lib\(index)-slow.so", in: folder.url)
        }
        let catalog = PluginLoader(searchPath: PluginSearchPath(folders: [folder.path]), callTimeout: Self.callTimeout).load()
        #expect(catalog.failures.isEmpty, "\(catalog.failures.map(\.error.message))")
        #expect(catalog.plugins.map(\.description.id) == (0..<5).map { "slow\($0)" })
    }
}
