// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif

/// The few GIO calls `eua scheme` needs (who is the default for a MIME type, make a desktop entry the
/// default, forget the type's associations), loaded with `dlopen` when a `scheme` command runs, so the
/// other commands never pay for loading GIO.
struct GIOMimeDefaults {
    /// An application as GIO knows it.
    struct Application: Equatable {
        /// Its desktop id (`firefox.desktop`).
        var id: String
        /// Its name for people.
        var name: String
    }

    private typealias GetDefault = @convention(c) (UnsafePointer<CChar>, Int32) -> OpaquePointer?
    private typealias NewDesktopApp = @convention(c) (UnsafePointer<CChar>) -> OpaquePointer?
    private typealias SetDefault =
        @convention(c) (OpaquePointer, UnsafePointer<CChar>, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32
    private typealias ResetType = @convention(c) (UnsafePointer<CChar>) -> Void
    private typealias GetString = @convention(c) (OpaquePointer) -> UnsafePointer<CChar>?
    private typealias Unref = @convention(c) (OpaquePointer) -> Void

    private let getDefault: GetDefault
    private let newDesktopApp: NewDesktopApp
    private let setAsDefault: SetDefault
    private let resetType: ResetType
    private let getID: GetString
    private let getName: GetString
    private let unref: Unref
    private let gio: GIOLibrary

    /// Loads GIO; throws a message naming the library and the Debian package when it is missing.
    init() throws(SchemeCommandError) {
        gio = try GIOLibrary()
        getDefault = try gio.function("g_app_info_get_default_for_type", as: GetDefault.self)
        newDesktopApp = try gio.function("g_desktop_app_info_new", as: NewDesktopApp.self)
        setAsDefault = try gio.function("g_app_info_set_as_default_for_type", as: SetDefault.self)
        resetType = try gio.function("g_app_info_reset_type_associations", as: ResetType.self)
        getID = try gio.function("g_app_info_get_id", as: GetString.self)
        getName = try gio.function("g_app_info_get_display_name", as: GetString.self)
        unref = try gio.function("g_object_unref", as: Unref.self)
    }

    /// The application GIO opens `mimeType` with, if any.
    func defaultApplication(for mimeType: String) -> Application? {
        guard let info = getDefault(mimeType, 0) else { return nil }
        defer { unref(info) }
        return Application(
            id: getID(info).map { String(cString: $0) } ?? "(no desktop id)",
            name: getName(info).map { String(cString: $0) } ?? "(no name)")
    }

    /// Makes the desktop entry `desktopID` the default for `mimeType` (written to `$XDG_CONFIG_HOME/mimeapps.list`).
    func setDefault(desktopID: String, for mimeType: String) throws(SchemeCommandError) {
        guard let info = newDesktopApp(desktopID) else {
            throw SchemeCommandError(
                "GIO does not find the desktop entry \(desktopID) in the applications folders "
                    + "of XDG_DATA_HOME and XDG_DATA_DIRS (it ignores an entry whose Exec program does not exist)")
        }
        defer { unref(info) }
        var error: UnsafeMutableRawPointer?
        guard setAsDefault(info, mimeType, &error) != 0 else {
            throw SchemeCommandError(
                "GIO could not make \(desktopID) the default for \(mimeType): \(gio.takeMessage(error))")
        }
    }

    /// Forgets the user's associations for `mimeType` (its default and added or removed applications).
    func resetAssociations(for mimeType: String) {
        resetType(mimeType)
    }
}
