#if canImport(Glibc)
import Glibc
#endif

/// libgio-2.0, opened with `dlopen` by the commands that need it (`eua scheme`, a hand-off's notification), so
/// the others never pay for loading GIO. Its functions are looked up by name, each as the C type it has.
struct GIOLibrary {
    private let handle: UnsafeMutableRawPointer

    /// Opens GIO; throws a message naming the library and the Debian package when it is missing.
    init() throws(SchemeCommandError) {
        guard let handle = dlopen("libgio-2.0.so.0", RTLD_NOW | RTLD_LOCAL) else {
            throw SchemeCommandError("GIO (libgio-2.0.so.0) could not be loaded: \(dlerror().map { String(cString: $0) } ?? "?"); "
                + "install Debian's libglib2.0-0 (any GNOME or GTK desktop has it)")
        }
        self.handle = handle
    }

    /// The function `name` as `type` (a `@convention(c)` function type); throws when this GIO lacks it.
    func function<T>(_ name: String, as type: T.Type) throws(SchemeCommandError) -> T {
        guard let address = dlsym(handle, name) else {
            throw SchemeCommandError("GIO (libgio-2.0.so.0) lacks \(name); it is too old (GLib 2.28 or later is needed)")
        }
        return unsafeBitCast(address, to: type)
    }
}
