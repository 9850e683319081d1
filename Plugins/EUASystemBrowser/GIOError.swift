// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CGIO

/// A GLib `GError`, copied out and freed: domain, code and message.
struct GIOError: Error, CustomStringConvertible {
    var domain: String
    var code: Int32
    var message: String

    /// Takes and frees `error`.
    init(taking error: UnsafeMutablePointer<GError>) {
        domain = g_quark_to_string(error.pointee.domain).map { String(cString: $0) } ?? "unknown"
        code = error.pointee.code
        message = error.pointee.message.map { String(cString: $0) } ?? ""
        g_error_free(error)
    }

    var isNotSupported: Bool {
        domain == "g-io-error-quark" && code == Int32(G_IO_ERROR_NOT_SUPPORTED.rawValue)
    }

    var description: String { "\(message) (\(domain) \(code))" }
}
