// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation

/// Compiles small C plugins for the loader's tests, against `eua_plugin.h` only.
public enum CPluginBuilder {
    /// Where every fixture library of this test process is kept (removed by the next run's clean-up).
    private static let keptFolder: URL = {
        let base = FileManager.default.temporaryDirectory
        let old = (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
        // Only folders of test processes that have ended: another test process may be running beside this one.
        for name in old where name.hasPrefix("eua-fixture-libs-") {
            guard let pid = Int32(name.dropFirst("eua-fixture-libs-".count)), pid != getpid(),
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            try? FileManager.default.removeItem(at: base.appendingPathComponent(name))
        }
        let folder = base.appendingPathComponent("eua-fixture-libs-\(getpid())")
        try? FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755])
        return folder
    }()

    /// Builds `Tests/Fixtures/<source>` with `defines` into `folder/<name>`, linked with `linking` (the compiler's
    /// arguments after the source: libraries it needs), and returns its path.
    public static func build(
        _ source: String = "misbehaving_plugin.c", defines: [String] = [],
        name: String, in folder: URL, linking: [String] = []
    ) throws -> URL {
        guard let compiler = ProcessRunner.which("clang") ?? ProcessRunner.which("cc") ?? ProcessRunner.which("gcc")
        else {
            throw TestSupportError("no C compiler (clang, cc or gcc) on PATH; install clang or gcc")
        }
        // Build into a folder that lives as long as this process, then hard-link into `folder`. A loaded
        // library is never closed, and glibc treats a new file that happens to get a freed inode number
        // of a loaded one as that library; keeping every built file alive rules that out.
        let kept = keptFolder.appendingPathComponent(UUID().uuidString + "-" + name)
        let output = folder.appendingPathComponent(name)
        let arguments =
            [
                "-shared", "-fPIC", "-fvisibility=hidden", "-o", kept.path,
                "-I", TestPaths.pluginHeaderFolder.path,
            ]
            + defines.map { "-D\($0)" } + [TestPaths.fixture(source).path] + linking
        let result = try ProcessRunner.run(compiler, arguments)
        guard result.status == 0 else {
            throw TestSupportError("compiling \(source) with \(defines) failed:\n\(result.stderr)")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: kept.path)
        try FileManager.default.linkItem(at: kept, to: output)
        return output
    }
}
