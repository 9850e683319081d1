// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CGIO

/// Building and reading GLib's `GVariant` values (the D-Bus values GDBus takes and gives) without its variadic
/// calls, which Swift cannot import. Values built here are floating: the call that takes them (a reply, a signal, a
/// container) owns them.
enum Variant {
    static func string(_ text: String) -> OpaquePointer { g_variant_new_string(text) }
    static func objectPath(_ path: String) -> OpaquePointer { g_variant_new_object_path(path) }
    static func uint32(_ value: UInt32) -> OpaquePointer { g_variant_new_uint32(value) }
    static func int64(_ value: Int64) -> OpaquePointer { g_variant_new_int64(gint64(value)) }
    static func bool(_ value: Bool) -> OpaquePointer { g_variant_new_boolean(value ? 1 : 0) }

    /// An `as`.
    static func strings(_ texts: [String]) -> OpaquePointer {
        array(of: "s", texts.map(string))
    }

    /// An array of `element` (a type string) holding `values`.
    static func array(of element: String, _ values: [OpaquePointer]) -> OpaquePointer {
        var items: [OpaquePointer?] = values
        return withType(element) { type in
            items.withUnsafeMutableBufferPointer { buffer in
                g_variant_new_array(type, buffer.baseAddress, gsize(buffer.count))
            }
        }
    }

    /// Runs `body` with the `GVariantType` of the type string `text` (a valid one: the service's own constants).
    static func withType<T>(_ text: String, _ body: (OpaquePointer) -> T) -> T {
        let type = g_variant_type_new(text)!
        defer { g_variant_type_free(type) }
        return body(type)
    }

    /// An `a{sv}` from `entries`, in their order.
    static func dictionary(_ entries: [(String, OpaquePointer)]) -> OpaquePointer {
        array(
            of: "{sv}",
            entries.map { key, value in g_variant_new_dict_entry(string(key), g_variant_new_variant(value)) })
    }

    /// A tuple of `values`.
    static func tuple(_ values: [OpaquePointer]) -> OpaquePointer {
        var items: [OpaquePointer?] = values
        return items.withUnsafeMutableBufferPointer { buffer in
            g_variant_new_tuple(buffer.baseAddress, gsize(buffer.count))
        }
    }

    /// The type string of `value` ("s", "a{sv}").
    static func type(of value: OpaquePointer) -> String { String(cString: g_variant_get_type_string(value)) }

    /// The `index`th child of a container (a new reference: unref it).
    static func child(_ value: OpaquePointer, _ index: Int) -> OpaquePointer {
        g_variant_get_child_value(value, gsize(index))
    }

    /// The number of children of a container.
    static func count(_ value: OpaquePointer) -> Int { Int(g_variant_n_children(value)) }

    /// The text of an `s` or `o`, with its length in bytes (GVariant strings hold no NUL).
    static func text(_ value: OpaquePointer) -> String {
        var length: gsize = 0
        guard let bytes = g_variant_get_string(value, &length) else { return "" }
        return String(
            decoding: UnsafeBufferPointer(
                start: UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self),
                count: Int(length)), as: UTF8.self)
    }

    /// The entries of an `a{sv}`: each key with its value unboxed (new references owned by the result).
    static func entries(of dictionary: OpaquePointer) -> [(key: String, value: Value)] {
        (0..<count(dictionary)).map { index in
            let entry = child(dictionary, index)
            defer { g_variant_unref(entry) }
            let key = child(entry, 0)
            let boxed = child(entry, 1)
            defer {
                g_variant_unref(key)
                g_variant_unref(boxed)
            }
            return (text(key), Value(g_variant_get_variant(boxed)))
        }
    }

    /// A value read from a caller, owned (unreferenced when it goes).
    final class Value: @unchecked Sendable {
        let pointer: OpaquePointer

        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { g_variant_unref(pointer) }

        var type: String { Variant.type(of: pointer) }
        var string: String? { type == "s" ? Variant.text(pointer) : nil }
        var uint32: UInt32? { type == "u" ? g_variant_get_uint32(pointer) : nil }
        var bool: Bool? { type == "b" ? g_variant_get_boolean(pointer) != 0 : nil }
        var strings: [String]? {
            guard type == "as" else { return nil }
            return (0..<Variant.count(pointer)).map { index in
                let item = Variant.child(pointer, index)
                defer { g_variant_unref(item) }
                return Variant.text(item)
            }
        }
    }
}
