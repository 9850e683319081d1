// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// The one error type of ExternalUserAgent.
///
/// `code` says what kind of failure it is (compare with `==`, switch over the static members);
/// `message` says what happened, where, and what to do; `underlying` keeps the cause.
/// New codes may be added in any release, so never switch exhaustively.
public struct ExternalUserAgentError: Error, Sendable, CustomStringConvertible {
    /// An extensible set of error codes, compared by name.
    ///
    /// The core declares the codes of agents, receivers, plugins, selection and configuration; another module
    /// adds its own as static members of an extension (the OAuth module's `tokenRequestFailed`, `idTokenInvalid`…),
    /// without touching this type. Code names are unique across the modules of a process.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as written in messages and in plugin events (`"userCanceled"`).
        public let name: String

        /// The code called `name`; declared once, as a static member of an extension of `Code` in a module of
        /// this package (so that every name stays unique in a process).
        package init(_ name: String) { self.name = name }

        /// The person closed the browser or said no to the flow.
        public static let userCanceled = Code("userCanceled")
        /// The app (or its `Task`) cancelled the flow.
        public static let programCanceled = Code("programCanceled")
        /// No callback arrived in time.
        public static let timedOut = Code("timedOut")
        /// A callback URL did not match the redirect URI (scheme, host, port or path); the flow goes on.
        public static let redirectMismatch = Code("redirectMismatch")
        /// A callback's `state` was missing, repeated or wrong; the flow goes on.
        public static let stateMismatch = Code("stateMismatch")
        /// A callback arrived after the session had already completed.
        public static let alreadyCompleted = Code("alreadyCompleted")
        /// A callback arrived before the session knew its redirect URI.
        public static let notStarted = Code("notStarted")
        /// The agent could not show the URL.
        public static let presentationFailed = Code("presentationFailed")
        /// The redirect receiver could not start or failed while waiting.
        public static let receiverFailed = Code("receiverFailed")
        /// Options given to an agent or receiver are wrong.
        public static let invalidOptions = Code("invalidOptions")
        /// The authorization server answered with an OAuth error (an agent or receiver may report one too).
        public static let oauthError = Code("oauthError")
        /// The file is not a loadable shared library.
        public static let pluginNotLoadable = Code("pluginNotLoadable")
        /// The library does not export the plugin entry symbol.
        public static let pluginEntryMissing = Code("pluginEntryMissing")
        /// The plugin was built for another major ABI version.
        public static let pluginABIMismatch = Code("pluginABIMismatch")
        /// The plugin's table lacks fields this host needs.
        public static let pluginTableTooSmall = Code("pluginTableTooSmall")
        /// `describe()` returned nothing, or JSON that is not a plugin description.
        public static let pluginDescriptionInvalid = Code("pluginDescriptionInvalid")
        /// A plugin, agent or receiver id was already taken by one loaded earlier.
        public static let pluginDuplicateID = Code("pluginDuplicateID")
        /// The file or a folder above it could be changed by someone else than root or this user.
        public static let pluginInsecurePermissions = Code("pluginInsecurePermissions")
        /// A plugin broke the ABI's rules at run time (bad event JSON, a second terminal event).
        public static let pluginProtocolViolation = Code("pluginProtocolViolation")
        /// No agent or receiver has the requested id.
        public static let agentNotFound = Code("agentNotFound")
        /// Selection found no agent that may and can run; the message lists every candidate and why it lost.
        public static let noAgentAvailable = Code("noAgentAvailable")
        /// A configuration file, variable or code setting is wrong; the message gives `file:line` and the key.
        public static let configurationInvalid = Code("configurationInvalid")

        /// The codes a plugin may send in a `failed` event (see `eua_plugin.h`).
        private static let pluginCodes: [Code] = [
            .userCanceled, .programCanceled, .timedOut, .presentationFailed,
            .receiverFailed, .invalidOptions, .oauthError,
        ]

        /// The code's name.
        public var description: String { name }

        /// Maps a code name from a plugin's `failed` event; a name a plugin may not send gives `nil`.
        public init?(name: String) {
            guard let code = Self.pluginCodes.first(where: { $0.name == name }) else { return nil }
            self = code
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened, where, and what to do about it.
    public var message: String
    /// The cause, when another error led to this one.
    public var underlying: (any Error & Sendable)?
    /// What the caller can change to succeed, as values a program maps to its own words (``Remedy``); the
    /// message says the same in words that fit any caller. See also ``allRemedies``.
    public var remedies: [Remedy]

    /// An error with `code`, a `message` that says what, where and what to do (in words that name no program's
    /// flags or settings), the `underlying` cause, and the `remedies` a program may spell in its own terms.
    public init(
        _ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil,
        remedies: [Remedy] = []
    ) {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.remedies = remedies
    }

    public var description: String {
        if let underlying {
            return "\(message) (\(code); caused by: \(underlying))"
        }
        return "\(message) (\(code))"
    }

    /// Whether this error is one of the two cancel codes.
    public var isCancellation: Bool { code == .userCanceled || code == .programCanceled }
}
