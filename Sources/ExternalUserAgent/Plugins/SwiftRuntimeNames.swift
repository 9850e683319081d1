#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentSystem

/// The Swift runtime's library names, answered before the first plugin opens in a host that holds the runtime itself.
///
/// The release `eua` commands link the Swift runtime and Foundation into themselves and export what plugins use
/// (`scripts/link-static`). A Swift plugin still names `libswiftCore.so` and the others as needed libraries; looked
/// for, they would bring a second runtime into the process and bind the plugin to a mix of both. So such a host first
/// opens, from `swift-runtime-names/` beside its executable, an empty library under all those names: the dynamic
/// loader then counts them as loaded, and every symbol a plugin needs binds to the host. Nothing happens in a host that uses the shared runtime (debug builds, apps), nor in one that holds the runtime
/// without exporting it (an app built with `--static-swift-stdlib`: a Swift plugin brings its own copy there).
///
/// One library answers every name: it needs them all and finds them beside itself (`DT_RPATH $ORIGIN`, searched
/// before `LD_LIBRARY_PATH`), each a link to itself; the loader notes the same file found again under another name
/// as that name. Opening eleven one-name libraries instead cost 2.3 times as much.
enum SwiftRuntimeNames {
    /// The folder beside the executable.
    static let folderName = "swift-runtime-names"

    /// The empty library in ``folderName`` that needs every runtime name; each name is a link to it.
    static let libraryName = "libeua-swift-runtime-names.so"

    /// Whether this process holds the Swift runtime and exports it to plugins (the release `eua` commands): such a
    /// program says so with the exported symbol ``marker`` (scripts/link-static defines it). Looking for
    /// `libswiftCore.so` with `dlopen(RTLD_NOLOAD)` instead would search every library folder when it is not loaded.
    static let hostExportsRuntime: Bool = {
        #if os(Linux)
        return dlsym(nil, marker) != nil  // nil is RTLD_DEFAULT on Linux (not on Darwin, where this never applies)
        #else
        return false
        #endif
    }()

    /// The symbol by which a program that holds the Swift runtime says it answers the runtime's library names.
    static let marker = "eua_swift_runtime_names"

    /// Whether `dlerror` text says a symbol of the Swift runtime or of Foundation is missing (not one of the plugin's
    /// own dependencies): the standard library (`$ss…`, `$sS…`), the runtime's C functions, or one of the modules
    /// linked into the commands.
    static func isRuntimeSymbolMissing(_ reason: String) -> Bool {
        guard let range = reason.firstRange(of: "undefined symbol: ") else { return false }
        let symbol = reason[range.upperBound...]
        let prefixes = ["$ss", "$sS", "swift_", "$s12_Concurrency", "$s20FoundationEssentials", "$s17_StringProcessing",
                        "$s12_RegexParser", "$s15Synchronization", "$s5Glibc", "$s8Dispatch", "$s22_FoundationCollections"]
        return prefixes.contains { symbol.hasPrefix($0) }
    }

    /// `nil` once plugins may be opened; otherwise why none may (opening one would mix two runtimes). Computed once.
    static let problem: String? = hostExportsRuntime ? openNames() : nil

    private static func openNames() -> String? {
        guard let executableFolder = PluginSearchPath.executableDirectory() else {
            return "this program holds the Swift runtime and cannot find its own folder (/proc/self/exe) to open the "
                + "runtime's names from \(folderName)/ before a plugin; plugins are not opened"
        }
        let folder = executableFolder + "/" + folderName
        let file = folder + "/" + libraryName
        let resolved: String
        switch PluginFileSafety.check(file) {
        case .safe(let checked): resolved = checked
        case .unsafe(let problem):
            return "this program holds the Swift runtime and opens Swift plugins against it only after the runtime's "
                + "library names, \(file): \(problem); plugins are not opened (a plugin would load a second runtime): "
                + "reinstall eua (scripts/install) or rebuild it (scripts/build-release)"
        }
        let names: DynamicLibrary
        switch DynamicLibrary.open(resolved) {
        case .success(let opened): names = opened
        case .failure(let error):
            return "the Swift runtime's library names \(file) cannot be opened (\(error.reason)); plugins are not "
                + "opened: reinstall eua (scripts/install) or rebuild it (scripts/build-release)"
        }
        // Every name must be answered by the empty library itself, not by a real library found under it (a file in
        // place of its link) or loaded before (LD_PRELOAD).
        for name in SmallFiles.names(in: folder).sorted() where name.hasSuffix(".so") && name != libraryName {
            guard names.answers(name) else {
                return "the Swift runtime library name \(name) is not answered by \(file) (a real library was "
                    + "loaded under it: a file in place of the link \(folder)/\(name), or LD_PRELOAD); plugins are "
                    + "not opened (they would bind to a second runtime): reinstall eua (scripts/install)"
            }
        }
        return nil
    }
}
