// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentSystem

/// The Swift runtime's library names, answered before the first plugin that needs them opens in a program that runs on
/// the package's one runtime library.
///
/// A release build's binaries share one library, `lib/eua/swift/libeua-swift.so.0` (scripts/link-runtime): the Swift
/// runtime, Foundation Essentials and the code the programs share. They need it by that name, so `ldd` and
/// `dpkg-shlibdeps` see one ordinary library. A Swift plugin built elsewhere with the same toolchain needs the
/// runtime under the toolchain's names instead (`libswiftCore.so`, `libFoundationEssentials.so`, …): looked for, they
/// would be missing on a machine without the toolchain, or bring a second runtime into the process where one is
/// installed. Each name is a link to the library beside it; opened by its bare name from code inside the library,
/// whose `DT_RPATH` is its own folder (searched before `LD_LIBRARY_PATH`), each is found as that same file, and the
/// dynamic loader counts the name as loaded: such a plugin binds to the one runtime. A program on the toolchain's
/// runtime (a debug build, the tests, an app) has nothing to answer.
enum SwiftRuntimeNames {
    /// The library that holds the runtime in a release build.
    static let libraryName = "libeua-swift.so.0"

    /// The symbol by which that library says it is loaded (scripts/link-runtime defines it). Looking for the library
    /// with `dlopen(RTLD_NOLOAD)` instead would search every library folder when it is not loaded.
    static let marker = "eua_swift_runtime_names"

    /// Whether this program runs on the package's runtime library (its marker symbol is loaded).
    static let onPackageRuntime: Bool = {
        #if os(Linux)
        return dlsym(nil, marker) != nil  // nil is RTLD_DEFAULT on Linux
        #else
        return false
        #endif
    }()

    /// `nil` once a plugin that needs the runtime's names may be opened; otherwise why it may not (opening it would
    /// mix two runtimes). Computed once, before the first such plugin: the package's own plugins need the library by
    /// its own name, and a command that opens only those answers nothing (eleven `dlopen` calls saved: `eua agents`
    /// −13 % of its CPU, a login −3 %).
    static let problem: String? = {
        #if os(Linux)
        return onPackageRuntime ? answerNames() : nil
        #else
        return nil
        #endif
    }()

    /// Whether the plugin at `path` must wait for ``problem``: this program runs on the package's runtime library and
    /// the plugin names one of the runtime's libraries as needed (or its needed libraries cannot be read).
    static func mustAnswerNames(before path: String) -> Bool {
        guard onPackageRuntime else { return false }
        guard let needed = ELFNeededLibraries.read(path) else { return true }
        return needed.contains { names.contains($0) }
    }

    /// Whether the plugin at `path` needs the package's runtime library while this program runs on another Swift
    /// runtime (the toolchain's: a debug build, the tests, an app built with SwiftPM). An installed eua's own plugins
    /// (and those of a `scripts/build-release` folder) need that library by name: opened here, it would be a second
    /// Swift runtime in the process, and the first value that crosses from one runtime to the other (a dictionary
    /// hashed by one and read by the other) stops the program. Read from the file's needed libraries, before `dlopen`.
    static func needsPackageRuntime(_ path: String) -> Bool {
        guard !onPackageRuntime, let needed = ELFNeededLibraries.read(path) else { return false }
        return needed.contains(libraryName)
    }

    /// Why a plugin found in `folder` that ``needsPackageRuntime(_:)`` is not opened, and what to do.
    static func otherRuntimeProblem(folder: String) -> String {
        "built for an installed eua's own Swift runtime (it needs \(libraryName)), and this program runs on another "
            + "Swift runtime; two runtimes in one process crash, so it is not opened. Use plugins built with this "
            + "program's toolchain (its agent plugin products, as swift build links them), or leave \(folder) out of "
            + "its plugin search path; or sign in through the eua command or the sign-in service, which run on that "
            + "runtime"
    }

    /// Whether `dlerror` text says a symbol of the Swift runtime or of Foundation is missing (not one of the plugin's
    /// own dependencies): the standard library (`$ss…`, `$sS…`), the runtime's C functions, or one of the runtime
    /// libraries in the package's runtime library.
    static func isRuntimeSymbolMissing(_ reason: String) -> Bool {
        guard let range = reason.firstRange(of: "undefined symbol: ") else { return false }
        let symbol = reason[range.upperBound...]
        let prefixes = [
            "$ss", "$sS", "swift_", "$s12_Concurrency", "$s20FoundationEssentials", "$s17_StringProcessing",
            "$s12_RegexParser", "$s15Synchronization", "$s5Glibc", "$s8Dispatch", "$s22_FoundationCollections",
        ]
        return prefixes.contains { symbol.hasPrefix($0) }
    }

    /// The toolchain's runtime library names that scripts/link-runtime makes links to the library (its ARCHIVES
    /// that have a shared library; it checks that this list is the same).
    static let names = [
        "libBlocksRuntime.so", "libFoundationEssentials.so", "libdispatch.so", "libswiftCore.so", "libswiftDispatch.so",
        "libswiftGlibc.so", "libswiftSynchronization.so", "libswift_Builtin_float.so", "libswift_Concurrency.so",
        "libswift_RegexParser.so", "libswift_StringProcessing.so",
    ]

    #if os(Linux)
    private static func answerNames() -> String? {
        // Loaded (its marker was found): matched by its SONAME, without a search.
        guard let runtime = dlopen(libraryName, RTLD_LAZY | RTLD_NOLOAD) else {
            return
                "this program runs on the package's Swift runtime, but \(libraryName) is not loaded under that name; "
                + "plugins are not opened: reinstall eua (scripts/install)"
        }
        defer { dlclose(runtime) }
        for name in names {
            // By its bare name: searched for in the library's DT_RPATH, its own folder, first.
            let answered = dlopen(name, RTLD_LAZY)
            if let answered { dlclose(answered) }
            guard answered == runtime else {
                let why =
                    answered == nil
                    ? "not found beside \(libraryName)"
                    : "another library was loaded under it: a file in place of the link beside \(libraryName), or LD_PRELOAD"
                return "the Swift runtime library name \(name) is not answered by \(libraryName) (\(why)); plugins are "
                    + "not opened (a plugin would bind to a second runtime): reinstall eua (scripts/install)"
            }
        }
        return nil
    }
    #endif
}
