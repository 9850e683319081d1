// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// An HTML form as a browser would submit it: found in a page with a small, forgiving scanner.
///
/// Knows `<form action method>`, `<input>` (hidden, text and the like; checkboxes and radios only when
/// `checked`; never file, reset or image), `<button>`, `<select>` (the `selected` option, else the
/// first) and `<textarea>`. Comments, `<script>` and `<style>` are skipped; attribute values may be
/// quoted either way or bare, and character references (`&amp;`, `&#39;`, `&#x2F;`) are decoded.
package struct HTMLForm: Equatable, Sendable {
    /// A field the form submits, in document order.
    package struct Field: Equatable, Sendable {
        var name: String
        var value: String
        /// The input's type, lowercased (`text`, `password`, `hidden`...), or `select` / `textarea`.
        var type = "text"

        /// Whether a person sees and types into it (not hidden, not a choice).
        var isTyped: Bool { !["hidden", "checkbox", "radio", "select"].contains(type) }
    }

    /// A submit button (`<input type=submit>`, `<button>`); one without a name submits nothing of its own.
    package struct SubmitButton: Equatable, Sendable {
        var name: String
        var value: String
        /// A `<button>`'s text, which a person reads instead of its value.
        var label = ""

        /// How a person would name it: `name=value "label"`.
        var description: String {
            (name.isEmpty ? "(no name)" : name) + (value.isEmpty ? "" : "=" + value)
                + (label.isEmpty ? "" : " \"\(label)\"")
        }
    }

    var action: String?
    /// `GET` or `POST`.
    package var method: String
    package var fields: [Field]
    package var submitButtons: [SubmitButton]

    /// Every form in `html`, in document order.
    package static func forms(in html: String) -> [HTMLForm] {
        var forms: [HTMLForm] = []
        var current: HTMLForm?
        var openSelect: (name: String, first: String?, selected: String?)?
        var tokenizer = HTMLTokenizer(html)
        while let token = tokenizer.next() {
            guard case .tag(let name, let attributes, let closing) = token else { continue }
            let isDisabled = attributes["disabled"] != nil
            func attribute(_ key: String) -> String? { attributes[key] }
            switch (name, closing) {
            case ("form", false):
                if let form = current { forms.append(form) }
                current = HTMLForm(
                    action: attribute("action"),
                    method: (attribute("method") ?? "get").uppercased() == "POST" ? "POST" : "GET",
                    fields: [], submitButtons: [])
            case ("form", true):
                if let form = current { forms.append(form) }
                current = nil
            case ("input", false):
                guard !isDisabled else { continue }
                let fieldName = attribute("name") ?? ""
                let type = (attribute("type") ?? "text").lowercased()
                let value = attribute("value")
                switch type {
                case "submit":
                    current?.submitButtons.append(SubmitButton(name: fieldName, value: value ?? "Submit"))
                case _ where fieldName.isEmpty:
                    continue
                case "checkbox", "radio":
                    if attributes["checked"] != nil {
                        current?.fields.append(Field(name: fieldName, value: value ?? "on", type: type))
                    }
                case "file", "reset", "image", "button":
                    continue
                default:
                    current?.fields.append(Field(name: fieldName, value: value ?? "", type: type))
                }
            case ("button", false):
                let type = (attribute("type") ?? "submit").lowercased()
                let label = HTMLTokenizer.decodeEntities(PageText.stripTags(tokenizer.rawText(until: "button")))
                if type == "submit", !isDisabled {
                    current?.submitButtons.append(
                        SubmitButton(
                            name: attribute("name") ?? "", value: attribute("value") ?? "",
                            label: PageText.collapsed(label)))
                }
            case ("select", false):
                openSelect = attribute("name").map { ($0, nil, nil) }
            case ("option", false):
                guard var select = openSelect else { continue }
                let value = attribute("value") ?? ""
                if select.first == nil { select.first = value }
                if attributes["selected"] != nil, select.selected == nil { select.selected = value }
                openSelect = select
            case ("select", true):
                if let select = openSelect, let value = select.selected ?? select.first {
                    current?.fields.append(Field(name: select.name, value: value, type: "select"))
                }
                openSelect = nil
            case ("textarea", false):
                let text = tokenizer.rawText(until: "textarea")
                if let fieldName = attribute("name") {
                    current?.fields.append(
                        Field(name: fieldName, value: HTMLTokenizer.decodeEntities(text), type: "textarea"))
                }
            default:
                continue
            }
        }
        if let form = current { forms.append(form) }
        return forms
    }

    /// The fields to send when `given` (`form.NAME` options) fill it in and `button` is pressed: given values
    /// replace the form's own; a name the form lacks is not sent (a password never goes to a page that did not
    /// ask for it); only the pressed button is sent, and only when it has a name.
    func submission(filling given: [(name: String, value: String)], pressing button: SubmitButton?) -> [Field] {
        var result = fields
        for (name, value) in given {
            guard let index = result.firstIndex(where: { $0.name == name }) else { continue }
            result[index].value = value
            result = result.enumerated().filter { $0.offset == index || $0.element.name != name }.map(\.element)
        }
        if let button, !button.name.isEmpty {
            result.append(Field(name: button.name, value: button.value, type: "submit"))
        }
        return result
    }

    /// The fields that take credentials: password fields, and typed fields `given` fills in.
    func credentialFields(given: [(name: String, value: String)]) -> [Field] {
        let givenNames = Set(given.map(\.name))
        return fields.filter { $0.type == "password" || ($0.isTyped && givenNames.contains($0.name)) }
    }

    /// How many of `names` this form has as fields or buttons.
    func matchCount(_ names: [String]) -> Int {
        let own = Set(fields.map(\.name) + submitButtons.map(\.name))
        return names.filter(own.contains).count
    }

    /// What makes this form the same form when a page shows it again: where it goes and what it asks
    /// (names, not values, which hold per-page tokens).
    var shape: String {
        ([method, action ?? ""] + fields.map { "\($0.type):\($0.name)" } + submitButtons.map(\.description))
            .joined(separator: "\u{1F}")
    }
}
