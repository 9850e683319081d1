// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif

/// libgio-2.0, opened with `dlopen` by the commands that need it (`eua scheme`, a hand-off's notification), so
/// the others never pay for loading GIO. Its functions are looked up by name, each as the C type it has.
struct GIOLibrary {
    private typealias FreeError = @convention(c) (UnsafeMutableRawPointer) -> Void

    private let handle: UnsafeMutableRawPointer
    private let freeError: FreeError

    /// Opens GIO; throws a message naming the library and the Debian package when it is missing.
    init() throws(SchemeCommandError) {
        guard let handle = dlopen("libgio-2.0.so.0", RTLD_NOW | RTLD_LOCAL) else {
            throw SchemeCommandError(
                "GIO (libgio-2.0.so.0) could not be loaded: \(dlerror().map { String(cString: $0) } ?? "?"); "
                    + "install Debian's libglib2.0-0 (any GNOME or GTK desktop has it)")
        }
        self.handle = handle
        guard let free = dlsym(handle, "g_error_free") else {
            throw SchemeCommandError("GIO (libgio-2.0.so.0) lacks g_error_free; it is not GIO")
        }
        freeError = unsafeBitCast(free, to: FreeError.self)
    }

    /// The function `name` as `type` (a `@convention(c)` function type); throws when this GIO lacks it.
    func function<T>(_ name: String, as type: T.Type) throws(SchemeCommandError) -> T {
        guard let address = dlsym(handle, name) else {
            throw SchemeCommandError(
                "GIO (libgio-2.0.so.0) lacks \(name); it is too old (GLib 2.28 or later is needed)")
        }
        return unsafeBitCast(address, to: type)
    }

    /// The message of a `GError` a call set (`{ GQuark domain; gint code; gchar *message; }`), which it frees;
    /// "unknown error" when there is none.
    func takeMessage(_ error: UnsafeMutableRawPointer?) -> String {
        guard let error else { return "unknown error" }
        defer { freeError(error) }
        return error.load(fromByteOffset: 8, as: UnsafePointer<CChar>?.self).map { String(cString: $0) }
            ?? "unknown error"
    }
}
