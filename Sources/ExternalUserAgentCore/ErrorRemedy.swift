// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
extension ExternalUserAgentError {
    /// Something the caller can change so that the operation succeeds, named so that each program says it in its
    /// own terms: a command line names its flags, a service its method's options, an app its own settings.
    ///
    /// An error's ``ExternalUserAgentError/message`` already says what to do in words that fit any caller ("give
    /// the client secret"); a remedy is the same advice as a value, for a program that maps it to its own spelling.
    /// Like ``Code``, remedies are compared by name and declared once, in the module that uses them.
    public struct Remedy: Hashable, Sendable, CustomStringConvertible {
        /// The remedy's name (`"giveClientSecret"`).
        public let name: String

        package init(_ name: String) { self.name = name }

        /// The remedy's name.
        public var description: String { name }

        /// Look at the log lines at debug level: what a plugin or a server said on the way.
        public static let seeDebugLog = Remedy("seeDebugLog")
        /// Allow more time: a longer time limit for the whole operation, or for the step that ran out.
        public static let allowMoreTime = Remedy("allowMoreTime")
        /// Name another user agent (or the same one once it works).
        public static let chooseAgent = Remedy("chooseAgent")
        /// Look at the agents that load here, with where each came from.
        public static let listAgents = Remedy("listAgents")
        /// Look at the selection report: every setting, the layer that decided it, and each candidate's verdict.
        public static let explainSelection = Remedy("explainSelection")
    }

    /// What the caller can change to succeed, most useful first; empty when the message's words are all there is.
    ///
    /// Includes the remedies of the errors this one wraps (``underlying``), so that advice is not lost when a
    /// step reports a failure of the step below it.
    public var allRemedies: [Remedy] {
        var found = remedies
        var cause = underlying
        while let error = cause as? ExternalUserAgentError {
            found += error.remedies.filter { !found.contains($0) }
            cause = error.underlying
        }
        return found
    }
}
