// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CGIO

/// A connection of the service's own to the session bus, through GDBus: objects registered on it, calls made and
/// signals emitted with it. Its callbacks run on the thread that runs GLib's default main context
/// (``MainLoop``).
final class Bus: @unchecked Sendable {
    /// The `GDBusConnection`.
    let connection: OpaquePointer

    /// A new connection (not GIO's shared one: the service's name is the only one it owns) to the bus at `address`.
    init(address: String) throws(ServiceError) {
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            throw ServiceError.startup("the session bus at \(address) could not be reached (\(Bus.take(error)))")
        }
        self.connection = connection
        g_dbus_connection_set_exit_on_close(connection, 0)
    }

    /// The session bus's address, as GIO finds it (`DBUS_SESSION_BUS_ADDRESS`, else the user's bus socket).
    static func sessionAddress() throws(ServiceError) -> String {
        var error: UnsafeMutablePointer<GError>?
        guard let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            throw ServiceError.startup(
                "no session bus was found (\(take(error))); start the service in a desktop session")
        }
        defer { g_free(address) }
        return String(cString: address)
    }

    /// Takes `name` as its primary owner, or throws when another process has it.
    func own(_ name: String) throws(ServiceError) {
        // DBUS_NAME_FLAG_DO_NOT_QUEUE = 4; a reply of 1 is DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER.
        let reply = try callSync(
            method: "RequestName", Variant.tuple([Variant.string(name), Variant.uint32(4)]), "(u)")
        defer { g_variant_unref(reply) }
        let code = Variant.child(reply, 0)
        defer { g_variant_unref(code) }
        guard g_variant_get_uint32(code) == 1 else {
            throw ServiceError.startup(
                "the bus name \(name) is owned by another process already (is the service running?)")
        }
    }

    /// A blocking call to the bus itself, for start-up.
    private func callSync(method: String, _ parameters: OpaquePointer, _ replyType: String) throws(ServiceError)
        -> OpaquePointer
    {
        var error: UnsafeMutablePointer<GError>?
        let reply = Variant.withType(replyType) { type in
            g_dbus_connection_call_sync(
                connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                method, parameters, type, G_DBUS_CALL_FLAGS_NONE, 5000, nil, &error)
        }
        guard let reply else { throw ServiceError.startup("the bus did not answer \(method) (\(Bus.take(error)))") }
        return reply
    }

    /// Calls `method` of the bus daemon and waits at most `timeout` for the reply of type `replyType` (owned by
    /// the caller: unref it). Throws the bus's error text.
    func callBus(
        _ method: String, _ parameters: OpaquePointer, replyType: String,
        timeout: Duration = .seconds(5)
    ) async throws(ServiceError) -> OpaquePointer {
        let result: Result<OwnedReply, ServiceError> = await withCheckedContinuation { continuation in
            let box = Unmanaged.passRetained(ReplyBox(continuation)).toOpaque()
            // GDBus copies the reply type for the call's life.
            let type = g_variant_type_new(replyType)
            defer { g_variant_type_free(type) }
            g_dbus_connection_call(
                connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                method, parameters, type, G_DBUS_CALL_FLAGS_NONE,
                Int32(clamping: timeout.components.seconds * 1000), nil,
                { source, result, context in
                    let box = Unmanaged<ReplyBox>.fromOpaque(context!).takeRetainedValue()
                    var error: UnsafeMutablePointer<GError>?
                    if let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error) {
                        box.continuation.resume(returning: .success(OwnedReply(pointer: reply)))
                    } else {
                        box.continuation.resume(
                            returning: .failure(.failed("the bus did not answer (\(Bus.take(error)))")))
                    }
                }, box)
        }
        return try result.get().pointer
    }

    /// Emits `signal` from `path` to `destination` only (a unicast signal, as xdg-desktop-portal sends `Response`).
    func emit(to destination: String, path: String, interface: String, signal: String, _ parameters: OpaquePointer) {
        var error: UnsafeMutablePointer<GError>?
        if g_dbus_connection_emit_signal(connection, destination, path, interface, signal, parameters, &error) == 0 {
            Log.error("the signal \(signal) could not be sent to \(destination): \(Bus.take(error))")
        }
    }

    /// Registers `handler` for `interface` (from `info`) at `path`; returns the registration id.
    func register(path: String, interface: UnsafeMutablePointer<GDBusInterfaceInfo>, handler: ObjectHandler)
        throws(ServiceError) -> UInt32
    {
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = { _, sender, path, interface, method, parameters, invocation, context in
            let handler = Unmanaged<ObjectHandler>.fromOpaque(context!).takeUnretainedValue()
            handler.method(
                MethodCall(
                    sender: sender.map { String(cString: $0) } ?? "",
                    path: path.map { String(cString: $0) } ?? "",
                    method: method.map { String(cString: $0) } ?? "",
                    parameters: parameters!, invocation: invocation!))
        }
        vtable.get_property = { _, _, _, _, property, _, context in
            let handler = Unmanaged<ObjectHandler>.fromOpaque(context!).takeUnretainedValue()
            return handler.property(property.map { String(cString: $0) } ?? "")
        }
        var error: UnsafeMutablePointer<GError>?
        let context = Unmanaged.passRetained(handler).toOpaque()
        let id = g_dbus_connection_register_object(
            connection, path, interface, &vtable, context,
            { Unmanaged<ObjectHandler>.fromOpaque($0!).release() }, &error)
        guard id != 0 else {
            throw ServiceError.failed("the object \(path) could not be registered (\(Bus.take(error)))")
        }
        return id
    }

    /// Removes a registration made by ``register(path:interface:handler:)``.
    func unregister(_ id: UInt32) {
        _ = g_dbus_connection_unregister_object(connection, id)
    }

    /// Calls `handler` with each name that lost its owner (a client that left the bus).
    func onNameLost(_ handler: @escaping @Sendable (String) -> Void) {
        let context = Unmanaged.passRetained(NameLostBox(handler)).toOpaque()
        _ = g_dbus_connection_signal_subscribe(
            connection, "org.freedesktop.DBus", "org.freedesktop.DBus",
            "NameOwnerChanged", "/org/freedesktop/DBus", nil,
            G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, context in
                guard let parameters, Variant.type(of: parameters) == "(sss)" else { return }
                let name = Variant.child(parameters, 0)
                let newOwner = Variant.child(parameters, 2)
                defer {
                    g_variant_unref(name)
                    g_variant_unref(newOwner)
                }
                guard Variant.text(newOwner).isEmpty else { return }
                Unmanaged<NameLostBox>.fromOpaque(context!).takeUnretainedValue().handler(Variant.text(name))
            }, context, { Unmanaged<NameLostBox>.fromOpaque($0!).release() })
    }

    /// The message of a GError, freeing it.
    static func take(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "no reason given" }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) } ?? "no reason given"
    }
}

/// One incoming method call: its parameters belong to GDBus until the callback returns (read them there), and its
/// invocation must be answered exactly once (``Reply``).
struct MethodCall {
    var sender: String
    var path: String
    var method: String
    var parameters: OpaquePointer
    var invocation: OpaquePointer
}

/// What an object does with its calls and property reads.
class ObjectHandler: @unchecked Sendable {
    /// Answers or hands off `call`; runs on the main loop's thread.
    func method(_ call: MethodCall) {
        Reply(call.invocation).error(.invalidArgument("the method \(call.method) is not known here"))
    }

    /// The value of `name` (floating), or `nil` for an unknown property.
    func property(_ name: String) -> OpaquePointer? { nil }
}

/// The answer owed to a method call: exactly one of its methods is called, once, from any thread.
struct Reply: @unchecked Sendable {
    let invocation: OpaquePointer

    init(_ invocation: OpaquePointer) { self.invocation = invocation }

    /// Returns `value` (a floating tuple).
    func value(_ value: OpaquePointer) { g_dbus_method_invocation_return_value(invocation, value) }

    /// Returns the error of `error`.
    func error(_ error: ServiceError) {
        g_dbus_method_invocation_return_dbus_error(invocation, error.name, error.message)
    }
}

/// A reply handed from GDBus's callback to the waiting task, which then owns it.
private struct OwnedReply: @unchecked Sendable {
    let pointer: OpaquePointer
}

private final class ReplyBox {
    let continuation: CheckedContinuation<Result<OwnedReply, ServiceError>, Never>
    init(_ continuation: CheckedContinuation<Result<OwnedReply, ServiceError>, Never>) {
        self.continuation = continuation
    }
}

private final class NameLostBox {
    let handler: @Sendable (String) -> Void
    init(_ handler: @escaping @Sendable (String) -> Void) { self.handler = handler }
}
