// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Text made safe to put in an HTML page, in element content or a quoted attribute: request or server
/// data can never become markup.
package enum HTMLText {
    /// `&`, `<`, `>`, `"` and `'` as character references; everything else as it is.
    package static func escaped(_ text: some StringProtocol) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
