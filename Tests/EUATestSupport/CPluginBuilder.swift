import Foundation

/// Compiles small C plugins for the loader's tests, against `eua_plugin.h` only.
public enum CPluginBuilder {
    /// Builds `Tests/Fixtures/<source>` with `defines` into `folder/<name>` and returns its path.
    public static func build(_ source: String = "misbehaving_plugin.c", defines: [String] = [],
                             name: String, in folder: URL) throws -> URL {
        guard let compiler = ProcessRunner.which("clang") ?? ProcessRunner.which("cc") ?? ProcessRunner.which("gcc") else {
            throw TestSupportError("no C compiler (clang, cc or gcc) on PATH; install clang or gcc")
        }
        let output = folder.appendingPathComponent(name)
        let arguments = ["-shared", "-fPIC", "-fvisibility=hidden", "-o", output.path,
                         "-I", TestPaths.pluginHeaderFolder.path]
            + defines.map { "-D\($0)" } + [TestPaths.fixture(source).path]
        let result = try ProcessRunner.run(compiler, arguments)
        guard result.status == 0 else {
            throw TestSupportError("compiling \(source) with \(defines) failed:\n\(result.stderr)")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: output.path)
        return output
    }
}
