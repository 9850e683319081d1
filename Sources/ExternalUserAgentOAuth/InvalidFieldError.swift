// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// A field of a JSON document from the network (a token response, an ID token's claims, device
/// authorization codes) that is missing, of the wrong type or out of range.
///
/// Thrown while decoding; the code that asked for the document wraps it in an
/// `ExternalUserAgentError` that says which document it was.
/// The text never holds a token: only the field's name, its JSON type and, for numbers, its value.
public struct InvalidFieldError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The JSON key (`expires_in`, `exp`).
    public var field: String
    /// What is wrong with it, as the rest of a sentence that starts with the field's name.
    public var problem: String

    /// An error about `field` (the JSON key); `problem` completes the sentence (`is missing`, `is empty`).
    public init(field: String, problem: String) {
        self.field = field
        self.problem = problem
    }

    /// `'expires_in' is -1e+30; it must be a whole number of seconds from 0 to 315360000`.
    public var description: String { "'\(field)' \(problem)" }
}
