// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A shared library opened with `dlopen(RTLD_NOW | RTLD_LOCAL)`; never closed.
///
/// Swift code in a closed library leaves dangling type metadata behind, so plugins stay
/// loaded for the life of the process.
struct DynamicLibrary: @unchecked Sendable {
    let path: String
    private let handle: UnsafeMutableRawPointer

    /// Opens `path`; the error is `dlerror()`'s text.
    static func open(_ path: String) -> Result<DynamicLibrary, DynamicLibraryError> {
        _ = dlerror()
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown dlopen error"
            return .failure(DynamicLibraryError(reason: reason))
        }
        return .success(DynamicLibrary(path: path, handle: handle))
    }

    /// The address of `name`, or `nil` when the library does not export it.
    func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        _ = dlerror()
        return dlsym(handle, name)
    }
}

struct DynamicLibraryError: Error, Sendable {
    var reason: String
}
