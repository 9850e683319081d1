// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension LocalHTTPServer.Request {
    /// The client a request to an endpoint where clients authenticate (token, PAR, revocation) names, and how:
    /// `client_secret_basic` (RFC 6749 §2.3.1, both parts form-decoded), else `client_secret_post` when the form
    /// holds a secret, else `none`. A `client_assertion` is checked by the endpoint after this.
    var presentedClient: (clientID: String?, secret: String?, method: String) {
        let form = self.form
        if let authorization = header("Authorization"), authorization.hasPrefix("Basic "),
            let decoded = Data(base64Encoded: String(authorization.dropFirst(6))).map({
                String(decoding: $0, as: UTF8.self)
            }),
            let colon = decoded.firstIndex(of: ":")
        {
            return (
                Self.decode(String(decoded[..<colon])), Self.decode(String(decoded[decoded.index(after: colon)...])),
                "client_secret_basic"
            )
        }
        let secret = form["client_secret"]
        return (form["client_id"], secret, secret == nil ? "none" : "client_secret_post")
    }
}
