// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Which submit button follow mode presses on a form — the rule docs/reference/agents-and-receivers.md documents:
///
/// 1. the button the `submit=NAME` or `submit=NAME=VALUE` option names, when the form has it;
/// 2. else the button a `form.NAME=VALUE` option names (a button with that name and value, else the first
///    with that name, sent with the given value);
/// 3. else, with no button, none (the form is submitted as Enter would); with one button, that one, unless it
///    says no (below);
/// 4. else the first button that grants: a word of its name, value or label is one of ``grantWords`` and none
///    is one of ``denyWords``. No such button: an error listing the buttons found.
package enum SubmitButtonRule {
    /// Words of a button that grants (allow, authorize, accept, approve, consent, yes, continue, sign in...).
    static let grantWords: Set<String> = [
        "allow", "authorize", "authorise", "accept", "approve", "consent", "grant",
        "yes", "continue", "confirm", "ok", "agree", "proceed", "next", "submit",
        "login", "signin", "logon",
    ]
    /// Words of a button that refuses or leaves (deny, cancel, reject, no...); such a button is never chosen by
    /// the rule.
    static let denyWords: Set<String> = [
        "deny", "cancel", "reject", "decline", "refuse", "no", "abort", "back",
        "disagree", "logout", "signout", "forgot", "register", "signup",
    ]

    /// A `submit=` option: a button name, and its value when given.
    package struct Choice: Equatable, Sendable {
        var name: String
        var value: String?

        /// Parses `NAME` or `NAME=VALUE`; `nil` for an empty name.
        package init?(_ text: String) {
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let first = parts.first, !first.isEmpty else { return nil }
            name = String(first)
            value = parts.count == 2 ? String(parts[1]) : nil
        }
    }

    /// Why no button could be chosen: the buttons found, for the user to name one.
    package struct NoMatch: Error {
        var buttons: [HTMLForm.SubmitButton]
        var onlyDenies: Bool
    }

    /// The button to press on `form` (`nil`: the form has none).
    package static func button(in form: HTMLForm, choice: Choice?, given: [(name: String, value: String)])
        throws(NoMatch)
        -> HTMLForm.SubmitButton?
    {
        let buttons = form.submitButtons
        if let choice,
            let named = buttons.first(where: {
                $0.name == choice.name && (choice.value == nil || $0.value == choice.value)
            })
        {
            return named
        }
        for (name, value) in given where buttons.contains(where: { $0.name == name }) {
            if let exact = buttons.first(where: { $0.name == name && $0.value == value }) { return exact }
            var first = buttons.first { $0.name == name }
            first?.value = value
            return first
        }
        guard !buttons.isEmpty else { return nil }
        if buttons.count == 1 {
            guard words(of: buttons[0]).isDisjoint(with: denyWords) else {
                throw NoMatch(buttons: buttons, onlyDenies: true)
            }
            return buttons[0]
        }
        if let granting = buttons.first(where: grants) { return granting }
        throw NoMatch(buttons: buttons, onlyDenies: false)
    }

    /// Whether `button` says yes by the rule.
    static func grants(_ button: HTMLForm.SubmitButton) -> Bool {
        let words = words(of: button)
        return !words.isDisjoint(with: grantWords) && words.isDisjoint(with: denyWords)
    }

    /// The button's words, lowercased, with "sign in", "log in", "sign out"... also as one word.
    static func words(of button: HTMLForm.SubmitButton) -> Set<String> {
        let text = [button.name, button.value, button.label].joined(separator: " ").lowercased()
        let words = text.split { !$0.isLetter && !$0.isNumber }.map(String.init)
        return Set(words + zip(words, words.dropFirst()).map { $0 + $1 })
    }
}
