// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentABI
/// An OAuth 2.0 error, as an authorization or token endpoint sends it (RFC 6749 §4.1.2.1, §5.2).
///
/// Carried as the `underlying` cause of an `ExternalUserAgentError`.
public struct OAuthErrorResponse: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The error code (`access_denied`, `invalid_grant`…).
    public var error: String
    /// The server's human-readable explanation.
    public var errorDescription: String?
    /// A page about the error.
    public var errorURI: String?

    /// An error with the `error` code and, when given, the server's description and page.
    public init(error: String, errorDescription: String? = nil, errorURI: String? = nil) {
        self.error = error
        self.errorDescription = errorDescription
        self.errorURI = errorURI
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case error
        case errorDescription = "error_description"
        case errorURI = "error_uri"
    }

    public var description: String {
        var text = error
        if let errorDescription { text += ": \(errorDescription)" }
        if let errorURI { text += " (see \(errorURI))" }
        return text
    }
}
