// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CSecret

/// Whether the sign-in service (`eua-signin-service`, `org.externaluseragent.SignIn`) can be reached on the session
/// bus: running, or only activatable (it starts on the first call). For `eua doctor`.
package enum SignInServiceProbe {
    /// The service's bus name.
    package static let busName = "org.externaluseragent.SignIn"

    /// `running`, `activatable` or `absent` (with why), each question to the bus waiting at most `timeout`.
    package static func state(timeout: Duration = .milliseconds(500)) -> (state: String, why: String?) {
        var why: UnsafeMutablePointer<CChar>?
        let state = csecret_bus_name_state(
            busName,
            Int32(
                clamping: timeout.components.seconds * 1000
                    + timeout.components.attoseconds / 1_000_000_000_000_000), &why)
        let reason = why.map { String(cString: $0) }
        if let why { csecret_free(why) }
        return (state == 2 ? "running" : state == 1 ? "activatable" : "absent", reason)
    }
}
