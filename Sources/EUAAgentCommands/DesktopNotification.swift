// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A desktop notification sent through GIO's D-Bus client to `org.freedesktop.Notifications`, for what the user
/// must see when no terminal is there (a scheme hand-off the desktop ran that found no sign-in waiting).
///
/// GIO is opened with `dlopen` only when a notification is sent. Nothing is sent without a session bus: with no
/// `DBUS_SESSION_BUS_ADDRESS` and no `$XDG_RUNTIME_DIR/bus`, GIO would try to start a bus of its own. The call
/// has a deadline of two seconds; a desktop without a notification server answers it with an error at once.
enum DesktopNotification {
    /// How long the notification server may take to answer.
    static let timeoutMilliseconds: Int32 = 2_000

    /// Sends a notification titled `summary` with `body` (plain text, no markup); returns why it could not be
    /// shown, or `nil` when the notification server took it.
    static func send(summary: String, body: String, environment: [String: String]) -> String? {
        guard hasSessionBus(environment) else { return "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)" }
        do {
            try GIODBus().notify(summary: summary, body: body, timeoutMilliseconds: timeoutMilliseconds)
            return nil
        } catch {
            return error.description
        }
    }

    /// Whether there is a session bus to talk to, without asking GIO to start one.
    static func hasSessionBus(_ environment: [String: String]) -> Bool {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"] {
            return !address.isEmpty && !address.hasPrefix("disabled:")
        }
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return false }
        var status = stat()
        return stat(runtime + "/bus", &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }
}

/// The few GIO calls a notification needs, looked up with `dlsym` (every one of them is not variadic).
private struct GIODBus {
    private typealias BusGetSync =
        @convention(c) (Int32, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> OpaquePointer?
    private typealias NewString = @convention(c) (UnsafePointer<CChar>) -> OpaquePointer?
    private typealias NewUInt32 = @convention(c) (UInt32) -> OpaquePointer?
    private typealias NewInt32 = @convention(c) (Int32) -> OpaquePointer?
    private typealias NewStrv = @convention(c) (UnsafePointer<UnsafePointer<CChar>?>?, Int) -> OpaquePointer?
    private typealias TypeNew = @convention(c) (UnsafePointer<CChar>) -> OpaquePointer?
    private typealias TypeFree = @convention(c) (OpaquePointer) -> Void
    private typealias NewArray = @convention(c) (OpaquePointer?, UnsafePointer<OpaquePointer?>?, Int) -> OpaquePointer?
    private typealias NewTuple = @convention(c) (UnsafePointer<OpaquePointer?>, Int) -> OpaquePointer?
    private typealias CallSync =
        @convention(c) (
            OpaquePointer, UnsafePointer<CChar>?, UnsafePointer<CChar>,
            UnsafePointer<CChar>?, UnsafePointer<CChar>, OpaquePointer?,
            OpaquePointer?, Int32, Int32, OpaquePointer?,
            UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> OpaquePointer?
    private typealias Unref = @convention(c) (OpaquePointer) -> Void

    private let busGetSync: BusGetSync
    private let newString: NewString
    private let newUInt32: NewUInt32
    private let newInt32: NewInt32
    private let newStrv: NewStrv
    private let typeNew: TypeNew
    private let typeFree: TypeFree
    private let newArray: NewArray
    private let newTuple: NewTuple
    private let callSync: CallSync
    private let variantUnref: Unref
    private let objectUnref: Unref
    private let gio: GIOLibrary

    /// G_BUS_TYPE_SESSION.
    private static let sessionBus: Int32 = 2
    /// G_DBUS_CALL_FLAGS_NO_AUTO_START: a missing notification server is not started for this.
    private static let noAutoStart: Int32 = 1

    init() throws(SchemeCommandError) {
        gio = try GIOLibrary()
        busGetSync = try gio.function("g_bus_get_sync", as: BusGetSync.self)
        newString = try gio.function("g_variant_new_string", as: NewString.self)
        newUInt32 = try gio.function("g_variant_new_uint32", as: NewUInt32.self)
        newInt32 = try gio.function("g_variant_new_int32", as: NewInt32.self)
        newStrv = try gio.function("g_variant_new_strv", as: NewStrv.self)
        typeNew = try gio.function("g_variant_type_new", as: TypeNew.self)
        typeFree = try gio.function("g_variant_type_free", as: TypeFree.self)
        newArray = try gio.function("g_variant_new_array", as: NewArray.self)
        newTuple = try gio.function("g_variant_new_tuple", as: NewTuple.self)
        callSync = try gio.function("g_dbus_connection_call_sync", as: CallSync.self)
        variantUnref = try gio.function("g_variant_unref", as: Unref.self)
        objectUnref = try gio.function("g_object_unref", as: Unref.self)
    }

    /// Calls `org.freedesktop.Notifications.Notify` (Desktop Notifications Specification 1.2) on the session bus.
    func notify(summary: String, body: String, timeoutMilliseconds: Int32) throws(SchemeCommandError) {
        var error: UnsafeMutableRawPointer?
        guard let bus = busGetSync(Self.sessionBus, nil, &error) else {
            throw SchemeCommandError("the session bus could not be reached: \(gio.takeMessage(error))")
        }
        defer { objectUnref(bus) }
        guard let hintsType = typeNew("{sv}") else { throw SchemeCommandError("GIO could not make the type {sv}") }
        defer { typeFree(hintsType) }
        // Notify(app_name s, replaces_id u, app_icon s, summary s, body s, actions as, hints a{sv}, expire_timeout i)
        let arguments: [OpaquePointer?] = [
            newString("eua"), newUInt32(0), newString("dialog-information"), newString(summary), newString(body),
            newStrv(nil, 0), newArray(hintsType, nil, 0), newInt32(-1),
        ]
        guard arguments.allSatisfy({ $0 != nil }),
            let parameters = arguments.withUnsafeBufferPointer({
                newTuple($0.baseAddress!, $0.count)
            })
        else {
            throw SchemeCommandError("GIO could not build the notification's arguments")
        }
        let reply = callSync(
            bus, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
            "org.freedesktop.Notifications", "Notify", parameters, nil, Self.noAutoStart,
            timeoutMilliseconds, nil, &error)
        guard let reply else {
            throw SchemeCommandError("the desktop's notification server did not take it: \(gio.takeMessage(error))")
        }
        variantUnref(reply)
    }
}
