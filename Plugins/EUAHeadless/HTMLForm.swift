/// An HTML form as a browser would submit it: found in a page with a small, forgiving scanner.
///
/// Knows `<form action method>`, `<input>` (hidden, text and the like; checkboxes and radios only when
/// `checked`; never file, reset or image), `<button>`, `<select>` (the `selected` option, else the
/// first) and `<textarea>`. Comments, `<script>` and `<style>` are skipped; attribute values may be
/// quoted either way or bare, and character references (`&amp;`, `&#39;`, `&#x2F;`) are decoded.
struct HTMLForm: Equatable, Sendable {
    /// A field the form submits, in document order.
    struct Field: Equatable, Sendable {
        var name: String
        var value: String
    }

    /// A named submit button.
    struct SubmitButton: Equatable, Sendable {
        var name: String
        var value: String
    }

    var action: String?
    /// `GET` or `POST`.
    var method: String
    var fields: [Field]
    var submitButtons: [SubmitButton]

    /// Every form in `html`, in document order.
    static func forms(in html: String) -> [HTMLForm] {
        var forms: [HTMLForm] = []
        var current: HTMLForm?
        var openSelect: (name: String, first: String?, selected: String?)?
        var tokenizer = HTMLTokenizer(html)
        while let token = tokenizer.next() {
            guard case .tag(let name, let attributes, let closing) = token else { continue }
            func attribute(_ key: String) -> String? { attributes[key] }
            switch (name, closing) {
            case ("form", false):
                if let form = current { forms.append(form) }
                current = HTMLForm(action: attribute("action"), method: (attribute("method") ?? "get").uppercased() == "POST" ? "POST" : "GET",
                                   fields: [], submitButtons: [])
            case ("form", true):
                if let form = current { forms.append(form) }
                current = nil
            case ("input", false):
                guard let fieldName = attribute("name"), !fieldName.isEmpty, attributes["disabled"] == nil else { continue }
                let type = (attribute("type") ?? "text").lowercased()
                let value = attribute("value")
                switch type {
                case "submit":
                    current?.submitButtons.append(SubmitButton(name: fieldName, value: value ?? "Submit"))
                case "checkbox", "radio":
                    if attributes["checked"] != nil { current?.fields.append(Field(name: fieldName, value: value ?? "on")) }
                case "file", "reset", "image", "button":
                    continue
                default:
                    current?.fields.append(Field(name: fieldName, value: value ?? ""))
                }
            case ("button", false):
                let type = (attribute("type") ?? "submit").lowercased()
                if type == "submit", let buttonName = attribute("name"), !buttonName.isEmpty, attributes["disabled"] == nil {
                    current?.submitButtons.append(SubmitButton(name: buttonName, value: attribute("value") ?? ""))
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
                    current?.fields.append(Field(name: select.name, value: value))
                }
                openSelect = nil
            case ("textarea", false):
                let text = tokenizer.rawText(until: "textarea")
                if let fieldName = attribute("name") {
                    current?.fields.append(Field(name: fieldName, value: HTMLTokenizer.decodeEntities(text)))
                }
            default:
                continue
            }
        }
        if let form = current { forms.append(form) }
        return forms
    }

    /// The fields to send when `given` (`form.NAME` options) fill it in: given values replace
    /// the form's, names the form lacks are added; a given name that matches a submit button
    /// presses that button.
    func submission(filling given: [(name: String, value: String)]) -> [Field] {
        var result = fields
        for (name, value) in given {
            if let index = result.firstIndex(where: { $0.name == name }) {
                result[index].value = value
                result = result.enumerated().filter { $0.offset == index || $0.element.name != name }.map(\.element)
            } else {
                result.append(Field(name: name, value: value))
            }
        }
        return result
    }

    /// How many of `names` this form has as fields or buttons.
    func matchCount(_ names: [String]) -> Int {
        let own = Set(fields.map(\.name) + submitButtons.map(\.name))
        return names.filter(own.contains).count
    }
}
