// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import Foundation
import Testing

/// The plugin index lets a command that names its ids open only the plugins that offer them, and a
/// wrong or stale index never hides a plugin.
@Suite("Plugin index", .onOwnThreads, .timeLimit(.minutes(1)))
struct PluginIndexTests {
    func loader(_ folders: [URL], index: URL?) -> PluginLoader {
        PluginLoader(
            searchPath: PluginSearchPath(folders: folders.map(\.path)),
            index: index.map { PluginIndexFile(path: $0.path) })
    }

    /// Rewrites the ids the index holds for `file`, keeping its stamp.
    func rewrite(_ index: URL, file: URL, ids: [String]) throws {
        let lines = try String(contentsOf: index, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first == "eua-plugin-index 1")
        var found = false
        let rewritten = lines.map { line -> String in
            var fields = line.split(separator: " ", maxSplits: 6).map(String.init)
            guard fields.count == 7, fields[6] == file.path else { return line }
            found = true
            fields[5] = ids.isEmpty ? "-" : ids.joined(separator: ",")
            return fields.joined(separator: " ")
        }
        #expect(found, "\(file.path) in \(lines)")
        try (rewritten.joined(separator: "\n") + "\n").write(to: index, atomically: true, encoding: .utf8)
    }

    @Test("a damaged index is ignored: every plugin is opened, and it is written anew")
    func damaged() throws {
        let cache = try TemporaryFolder()
        let index = cache.url.appendingPathComponent("plugin-index")
        try Data("eua-plugin-index 1\nnot numbers at all /x.so\n\u{0}\u{1}garbage\n".utf8).write(to: index)
        let products = TestPaths.productsFolder
        let catalog = loader([products], index: index).load(offering: ["headless"])
        #expect(catalog.agent(id: "headless") != nil)
        #expect(catalog.plugins.count > 2)
        let text = try String(contentsOf: index, encoding: .utf8)
        #expect(text.contains(products.appendingPathComponent("libEUAHeadless.so").path))
        #expect(!text.contains("garbage"))
    }

    @Test("the first load learns every file; the next opens only the file that offers the id")
    func skipsOthers() throws {
        let cache = try TemporaryFolder()
        let index = cache.url.appendingPathComponent("eua/plugin-index")
        let products = TestPaths.productsFolder
        let first = loader([products], index: index).load(offering: ["headless"])
        #expect(first.plugins.count > 2, "nothing known yet: every plugin is opened")
        #expect(FileManager.default.fileExists(atPath: index.path))
        let mode = try FileManager.default.attributesOfItem(atPath: index.path)[.posixPermissions] as? Int
        #expect(mode.map { $0 & 0o022 } == 0, "not writable by others")

        let second = loader([products], index: index).load(offering: ["headless"])
        #expect(second.plugins.map(\.path) == [products.appendingPathComponent("libEUAHeadless.so").path])
        #expect(second.agent(id: "headless") != nil)
        #expect(second.receiver(id: "loopback") == nil, "not asked for, not opened")

        let both = loader([products], index: index).load(offering: ["headless", "loopback"])
        #expect(both.plugins.count == 2)
        #expect(both.receiver(id: "loopback") != nil)
    }

    @Test("a long index, thousands of lines for files of earlier builds, is read: the next load still opens one file")
    func longIndex() throws {
        let cache = try TemporaryFolder()
        let index = cache.url.appendingPathComponent("plugin-index")
        let products = TestPaths.productsFolder
        _ = loader([products], index: index).load(offering: ["headless"])
        let written = try String(contentsOf: index, encoding: .utf8)
        #expect(written.hasPrefix("eua-plugin-index 1\n"))
        // Before the real entries: files that are gone, ids with non-ASCII letters, and lines that do not read.
        var text = "eua-plugin-index 1\n"
        for number in 0..<3000 {
            text += "1 \(number) 2 3 4 other-\(number),\u{E9}t\u{E9}-\(number) /gone/build-\(number)/libEUAOther.so\n"
        }
        text += "5 6 7 8 9 - \n" + "x 6 7 8 9 - /not/a/number.so\n" + "1 2 3 4 5 \u{301}x /combining.so\n\n"
        text += written.dropFirst("eua-plugin-index 1\n".count)
        try Data(text.utf8).write(to: index)

        let second = loader([products], index: index).load(offering: ["headless"])
        #expect(second.plugins.map(\.path) == [products.appendingPathComponent("libEUAHeadless.so").path])
        #expect(second.agent(id: "headless") != nil)
    }

    @Test(
        "the index is read by bytes: its text reads back to the same entries; '-' or empty ids are dropped, bad lines skipped"
    )
    func textRoundTrip() {
        var bytes = Array("eua-plugin-index 1\n1 2 3 -4 +5 -,a,,b /a path/with spaces.so\n1 2 3 4 5 - /none.so\n".utf8)
        bytes += Array("1 2 3 4 5 \u{301}x /combining.so\r\n".utf8)  // one Character " \u{301}" holds a field break
        bytes += Array("1 2 3 4 5 y /bad-".utf8) + [0xFF, 0xFE] + Array(".so\n".utf8)
        bytes += Array("1 2 3 4 5 x\n1 2 3 4 five x /bad.so\n6 7 8 9 10 c \n".utf8)
        let entries = PluginIndex.entries(parsing: bytes)
        #expect(entries.count == 4)
        #expect(entries["/a path/with spaces.so"]?.ids == ["a", "b"])
        #expect(
            entries["/a path/with spaces.so"]?.stamp
                == PluginIndex.FileStamp(device: 1, inode: 2, size: 3, modified: -4, changed: 5))
        #expect(entries["/none.so"]?.ids == [])
        #expect(entries["/combining.so\r"]?.ids == ["\u{301}x"])
        #expect(entries["/bad-\u{FFFD}\u{FFFD}.so"]?.ids == ["y"])
        #expect(PluginIndex.entries(parsing: Array(PluginIndex.text(of: entries).utf8)) == entries)
        #expect(PluginIndex.entries(parsing: Array("eua-plugin-index 2\n1 2 3 4 5 a /x.so\n".utf8)).isEmpty)
    }

    @Test(
        "what the loader may record is what a line holds, on bytes: no line break in a path, no comma or space in an id"
    )
    func holds() {
        #expect(PluginIndex.holds(path: "/p/libA.so", ids: ["a", "b.c"]))
        #expect(!PluginIndex.holds(path: "/p\r\nq.so", ids: ["a"]), "\"\\r\\n\" is one Character")
        #expect(!PluginIndex.holds(path: "/p.so", ids: ["a,\u{301}b"]), "\",\\u{301}\" is one Character")
        #expect(!PluginIndex.holds(path: "/p.so", ids: ["-"]))
        #expect(!PluginIndex.holds(path: "/p.so", ids: [""]))
        #expect(!PluginIndex.holds(path: "/p.so", ids: ["a b"]))
        #expect(!PluginIndex.holds(path: "", ids: []))
    }

    @Test("an entry for a file that is gone is dropped when the index is next written")
    func goneFileDropped() throws {
        let cache = try TemporaryFolder()
        let index = cache.url.appendingPathComponent("plugin-index")
        let products = TestPaths.productsFolder
        let gone = cache.url.appendingPathComponent("removed-folder/libGone.so").path
        try Data("eua-plugin-index 1\n1 2 3 4 5 gone-agent \(gone)\n".utf8).write(to: index)
        let catalog = loader([products], index: index).load(offering: ["headless"])
        #expect(catalog.agent(id: "headless") != nil)
        let text = try String(contentsOf: index, encoding: .utf8)
        #expect(text.contains(products.appendingPathComponent("libEUAHeadless.so").path), "what was learned is written")
        #expect(!text.contains(gone), "the entry of the file that is gone is not")
    }

    @Test("an index that points away from a plugin does not hide it: every plugin is opened")
    func wrongIndex() throws {
        let cache = try TemporaryFolder()
        let index = cache.url.appendingPathComponent("plugin-index")
        let products = TestPaths.productsFolder
        _ = loader([products], index: index).load()
        try rewrite(index, file: products.appendingPathComponent("libEUAHeadless.so"), ids: ["something-else"])
        let catalog = loader([products], index: index).load(offering: ["headless"])
        #expect(catalog.agent(id: "headless") != nil)
        #expect(catalog.plugins.count > 2)
    }

    @Test("a changed file is opened again, whatever the index said about it")
    func changedFile() throws {
        let folder = try TemporaryFolder()
        let plugin = folder.url.appendingPathComponent("libEUAHeadless.so")
        try FileManager.default.copyItem(at: try TestPaths.product("libEUAHeadless.so"), to: plugin)
        let index = folder.url.appendingPathComponent("cache/plugin-index")
        _ = loader([folder.url], index: index).load()
        try rewrite(index, file: plugin, ids: [])
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: plugin.path)
        let catalog = loader([folder.url], index: index).load(offering: ["headless"])
        #expect(catalog.plugins.count == 1)
        #expect(catalog.agent(id: "headless") != nil)
    }

    @Test("an index that cannot be written, or no index at all, changes nothing but the time")
    func unwritableOrNone() throws {
        let folder = try TemporaryFolder()
        let blocker = folder.url.appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: blocker)
        let products = TestPaths.productsFolder
        let unwritable = loader([products], index: blocker.appendingPathComponent("plugin-index"))
        #expect(unwritable.load(offering: ["headless"]).agent(id: "headless") != nil)
        #expect(unwritable.load(offering: ["headless"]).plugins.count > 2, "nothing could be remembered")
        let none = loader([products], index: nil).load(offering: ["headless"])
        #expect(none.plugins.count == loader([products], index: nil).load().plugins.count)
    }

    @Test("the standard place: XDG_CACHE_HOME, else ~/.cache; a relative XDG_CACHE_HOME is ignored")
    func standardPlace() {
        #expect(
            PluginIndexFile.standard(environment: ["XDG_CACHE_HOME": "/c", "HOME": "/h"])?.path == "/c/eua/plugin-index"
        )
        #expect(
            PluginIndexFile.standard(environment: ["XDG_CACHE_HOME": "rel", "HOME": "/h"])?.path
                == "/h/.cache/eua/plugin-index")
        #expect(PluginIndexFile.standard(environment: [:]) == nil)
    }
}
