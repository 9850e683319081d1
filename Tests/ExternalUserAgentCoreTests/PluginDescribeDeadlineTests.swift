// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import Foundation
import Testing

/// Each `describe()` call runs on a thread of its own (`BlockingCall`) with its full deadline from its start; a call
/// that overruns keeps its thread, and the calls after it still run at once.
@Suite("Plugin describe() deadlines", .onOwnThreads, .timeLimit(.minutes(1)))
struct PluginDescribeDeadlineTests {
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
        let catalog = PluginLoader(searchPath: PluginSearchPath(folders: [folder.path]), callTimeout: Self.callTimeout)
            .load()
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < Self.callTimeout * 2 + Self.slack, "took \(elapsed)")
        #expect(catalog.plugins.map(\.description.id) == ["fine0", "fine1", "fine2"])
        #expect(catalog.failures.map(\.path) == hung.map(\.path))
        for failure in catalog.failures {
            #expect(failure.error.message.contains("describe() did not return within"), "\(failure.error.message)")
        }
    }

    @Test("three describe() calls that never return cost about one deadline in all, not one each")
    func threeHung() throws {
        let folder = try TemporaryFolder()
        for name in ["liba-hung.so", "libb-hung.so", "libc-hung.so"] {
            _ = try CPluginBuilder.build(
                defines: ["DESCRIBE_HANGS", "PLUGIN_ID=\"\(name)\""], name: name, in: folder.url)
        }
        _ = try CPluginBuilder.build(defines: ["PLUGIN_ID=\"fine\""], name: "libd-fine.so", in: folder.url)
        let started = ContinuousClock.now
        let catalog = PluginLoader(searchPath: PluginSearchPath(folders: [folder.path]), callTimeout: Self.callTimeout)
            .load()
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < Self.callTimeout * 2 + Self.slack, "took \(elapsed)")
        #expect(catalog.plugins.map(\.description.id) == ["fine"])
        #expect(catalog.failures.count == 3)
    }

    @Test("after a describe() that never returns, the next plugin loaded is not held up by it")
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
            _ = try CPluginBuilder.build(
                defines: ["DESCRIBE_SLEEP_MS=200", "PLUGIN_ID=\"slow\(index)\""],
                name: "lib\(index)-slow.so", in: folder.url)
        }
        let catalog = PluginLoader(searchPath: PluginSearchPath(folders: [folder.path]), callTimeout: Self.callTimeout)
            .load()
        #expect(catalog.failures.isEmpty, "\(catalog.failures.map(\.error.message))")
        #expect(catalog.plugins.map(\.description.id) == (0..<5).map { "slow\($0)" })
    }
}
