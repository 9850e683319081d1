// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// The wire types read from JSON text and written to it by hand (``JSONValue/init(parsing:)``,
/// ``JSONValue/jsonText``): what host and plugins exchange on every load and sign-in, without `Codable`.
/// The `Codable` conformances stay for code that wants them; both read `null` as absent.
extension PluginABI {
    /// Why a text is not the wire shape expected: not JSON, a member missing, or one of the wrong type.
    public struct TextError: Error, Sendable, CustomStringConvertible {
        /// `not JSON: …`, `missing key 'id'`, `wrong type at 'agents.0.available': expected true or false`.
        public var description: String

        init(_ description: String) { self.description = description }
    }

    /// Parses `text` as one JSON object.
    static func object(_ text: String) throws(TextError) -> WireObject {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: text)
        } catch {
            throw TextError("not JSON: \(error)")
        }
        return try WireObject(value, path: "")
    }

    /// Reads an options object (string values only; empty or absent text is no options).
    public static func options(fromJSONText text: String?) throws(TextError) -> [String: String] {
        guard let text, !text.isEmpty else { return [:] }
        let object = try object(text)
        var options: [String: String] = [:]
        for key in object.members.keys { options[key] = try object.string(key) }
        return options
    }

    /// Options as the JSON object text that crosses the ABI.
    public static func jsonText(options: [String: String]) -> String {
        JSONValue.object(options.mapValues(JSONValue.string)).jsonText
    }
}

/// One JSON object's members, read with the wire's rules; `path` names it in messages (`agents.0`).
struct WireObject {
    let members: [String: JSONValue]
    let path: String

    init(_ value: JSONValue, path: String) throws(PluginABI.TextError) {
        guard case .object(let members) = value else {
            throw PluginABI.TextError(
                path.isEmpty ? "not a JSON object" : "wrong type at '\(path)': expected an object")
        }
        self.members = members
        self.path = path
    }

    private func place(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    private func wrongType(_ key: String, _ expected: String) -> PluginABI.TextError {
        PluginABI.TextError("wrong type at '\(place(key))': expected \(expected)")
    }

    /// The member's value; `nil` when absent or `null`.
    func present(_ key: String) -> JSONValue? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    func string(_ key: String) throws(PluginABI.TextError) -> String {
        guard let value = try optionalString(key) else { throw PluginABI.TextError("missing key '\(place(key))'") }
        return value
    }

    func optionalString(_ key: String) throws(PluginABI.TextError) -> String? {
        guard let value = present(key) else { return nil }
        guard case .string(let text) = value else { throw wrongType(key, "a string") }
        return text
    }

    func optionalBool(_ key: String) throws(PluginABI.TextError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard case .bool(let flag) = value else { throw wrongType(key, "true or false") }
        return flag
    }

    func optionalNumber(_ key: String) throws(PluginABI.TextError) -> Double? {
        guard let value = present(key) else { return nil }
        guard case .number(let number) = value else { throw wrongType(key, "a number") }
        return number
    }

    func wholeNumber(_ key: String) throws(PluginABI.TextError) -> Int {
        guard let number = try optionalNumber(key) else { throw PluginABI.TextError("missing key '\(place(key))'") }
        // Beyond 2^53 a JSON number is not an exact integer everywhere (RFC 8259 §6): refused, not rounded.
        guard abs(number) < 9_007_199_254_740_992, let whole = Int(exactly: number) else {
            throw wrongType(key, "a whole number below 2^53")
        }
        return whole
    }

    func optionalStrings(_ key: String) throws(PluginABI.TextError) -> [String]? {
        guard let value = present(key) else { return nil }
        guard case .array(let elements) = value else { throw wrongType(key, "an array of strings") }
        var strings: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element else { throw wrongType("\(key).\(index)", "a string") }
            strings.append(text)
        }
        return strings
    }

    func optionalObjects(_ key: String) throws(PluginABI.TextError) -> [WireObject]? {
        guard let value = present(key) else { return nil }
        guard case .array(let elements) = value else { throw wrongType(key, "an array of objects") }
        var objects: [WireObject] = []
        for (index, element) in elements.enumerated() {
            objects.append(try WireObject(element, path: place("\(key).\(index)")))
        }
        return objects
    }

    func optionalMembers(_ key: String) throws(PluginABI.TextError) -> [String: JSONValue]? {
        guard let value = present(key) else { return nil }
        guard case .object(let members) = value else { throw wrongType(key, "an object") }
        return members
    }

    func object(_ key: String) throws(PluginABI.TextError) -> WireObject {
        guard let value = present(key) else { throw PluginABI.TextError("missing key '\(place(key))'") }
        return try WireObject(value, path: place(key))
    }
}

extension PluginABI.PluginDescription {
    /// Reads `describe()`'s text (name defaults to the id, version to `unknown`, lists to empty).
    public init(jsonText text: String) throws(PluginABI.TextError) {
        let object = try PluginABI.object(text)
        let id = try object.string("id")
        self.init(
            id: id, name: try object.optionalString("name") ?? id,
            version: try object.optionalString("version") ?? "unknown",
            agents: try (object.optionalObjects("agents") ?? []).map(PluginABI.Component.init(wire:)),
            receivers: try (object.optionalObjects("receivers") ?? []).map(PluginABI.Component.init(wire:)))
    }
}

extension PluginABI.Component {
    init(wire object: WireObject) throws(PluginABI.TextError) {
        let id = try object.string("id")
        self.init(
            id: id, kind: try object.optionalString("kind"), family: try object.optionalString("family"),
            name: try object.optionalString("name") ?? id, version: try object.optionalString("version"),
            available: try object.optionalBool("available") ?? true,
            reasons: try object.optionalStrings("reasons") ?? [], details: try object.optionalMembers("details"))
    }
}

extension PluginABI.AgentRequest {
    /// Reads the request text `start()` gets.
    public init(jsonText text: String) throws(PluginABI.TextError) {
        let object = try PluginABI.object(text)
        self.init(
            url: try object.string("url"), redirectURI: try object.optionalString("redirect_uri"),
            timeoutSeconds: try object.optionalNumber("timeout_seconds"),
            purpose: try object.optionalString("purpose"))
    }

    /// The request as JSON text; absent values are left out.
    public var jsonText: String {
        var members: [String: JSONValue] = ["url": .string(url)]
        if let redirectURI { members["redirect_uri"] = .string(redirectURI) }
        if let timeoutSeconds { members["timeout_seconds"] = .number(timeoutSeconds) }
        if let purpose { members["purpose"] = .string(purpose) }
        return JSONValue.object(members).jsonText
    }
}

extension PluginABI.ReceiverRequest {
    /// Reads the request text `start()` gets.
    public init(jsonText text: String) throws(PluginABI.TextError) {
        let object = try PluginABI.object(text)
        self.init(
            state: try object.optionalString("state"), path: try object.optionalString("path"),
            timeoutSeconds: try object.optionalNumber("timeout_seconds"),
            handOff: try PluginABI.HandOff(optionalIn: object))
    }

    /// The request as JSON text; absent values are left out.
    public var jsonText: String {
        var members: [String: JSONValue] = [:]
        if let state { members["state"] = .string(state) }
        if let path { members["path"] = .string(path) }
        if let timeoutSeconds { members["timeout_seconds"] = .number(timeoutSeconds) }
        if let handOff { members["hand_off"] = handOff.jsonValue }
        return JSONValue.object(members).jsonText
    }
}

extension PluginABI.HandOff {
    /// Reads the `hand_off` member of a receiver request; `nil` when absent. Every member is checked here: the
    /// receiver renders what it reads.
    init?(optionalIn request: WireObject) throws(PluginABI.TextError) {
        guard request.present("hand_off") != nil else { return nil }
        let object = try request.object("hand_off")
        var fields: [Field] = []
        for field in try object.optionalObjects("fields") ?? [] {
            fields.append(Field(name: try field.string("name"), value: try field.string("value")))
        }
        self.init(
            path: try object.string("path"), action: try object.string("action"), method: try object.string("method"),
            fields: fields, redirectURIField: try object.optionalString("redirect_uri_field"))
    }

    /// The object as it crosses the ABI.
    var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "path": .string(path), "action": .string(action), "method": .string(method),
            "fields": .array(fields.map { .object(["name": .string($0.name), "value": .string($0.value)]) }),
        ]
        if let redirectURIField { members["redirect_uri_field"] = .string(redirectURIField) }
        return .object(members)
    }
}

extension PluginABI.ErrorValue {
    /// Reads an error text (`create`'s error).
    public init(jsonText text: String) throws(PluginABI.TextError) {
        try self.init(wire: PluginABI.object(text))
    }

    init(wire object: WireObject) throws(PluginABI.TextError) {
        self.init(code: try object.string("code"), message: try object.string("message"))
    }

    /// The error as a JSON value.
    public var jsonValue: JSONValue { .object(["code": .string(code), "message": .string(message)]) }

    /// The error as JSON text.
    public var jsonText: String { jsonValue.jsonText }
}

extension PluginABI.Event {
    /// Reads one event text.
    public init(jsonText text: String) throws(PluginABI.TextError) {
        let object = try PluginABI.object(text)
        let name = try object.string("event")
        switch name {
        case "presented": self = .presented
        case "redirect": self = .redirect(url: try object.string("url"))
        case "listening": self = .listening(redirectURI: try object.string("redirect_uri"))
        case "callback": self = .callback(url: try object.string("url"))
        case "refused": self = .refused(status: try object.wholeNumber("status"), reason: try object.string("reason"))
        case "finished": self = .finished
        case "failed": self = .failed(try PluginABI.ErrorValue(wire: object.object("error")))
        default: throw PluginABI.TextError("unknown event \"\(name)\"")
        }
    }

    /// The event as JSON text.
    public var jsonText: String {
        let members: [String: JSONValue] =
            switch self {
            case .presented: ["event": .string("presented")]
            case .redirect(let url): ["event": .string("redirect"), "url": .string(url)]
            case .listening(let uri): ["event": .string("listening"), "redirect_uri": .string(uri)]
            case .callback(let url): ["event": .string("callback"), "url": .string(url)]
            case .refused(let status, let reason):
                ["event": .string("refused"), "status": .number(Double(status)), "reason": .string(reason)]
            case .finished: ["event": .string("finished")]
            case .failed(let error): ["event": .string("failed"), "error": error.jsonValue]
            }
        return JSONValue.object(members).jsonText
    }
}
