// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
@testable import EUAHeadless
import Foundation
import EUATestSupport
import Testing

/// Pages that once crashed follow mode's HTML readers, kept from `scripts/fuzz` (Fuzz/regressions/FuzzHTMLPage/)
/// and fed to the very functions follow mode calls.
@Suite("headless follow mode: hostile pages found by fuzzing", .onOwnThreads)
struct HTMLTokenizerRegressionTests {
    /// An attribute with no name (`<script =`) at the very end of a page moved the tokenizer past the end, and
    /// reading the script's text then trapped (Range requires lowerBound <= upperBound).
    @Test(
        "a nameless attribute at the end of a page: no trap, nothing read past the end",
        arguments: ["<script =", "<style =", "<form =", "<script ='x'"])
    func namelessAttributeAtEnd(page: String) {
        #expect(HTMLForm.forms(in: page).count == (page.hasPrefix("<form") ? 1 : 0))
        _ = PageText.visibleText(in: page)
        _ = PageText.errorText(in: page)
    }

    @Test("every kept FuzzHTMLPage input runs through the page readers")
    func keptInputs() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/regressions/FuzzHTMLPage")
        let inputs = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        #expect(!inputs.isEmpty)
        for input in inputs {
            let page = String(decoding: try Data(contentsOf: input), as: UTF8.self)
            for form in HTMLForm.forms(in: page) { #expect(form.method == "GET" || form.method == "POST") }
            _ = PageText.visibleText(in: page)
        }
    }
}
