// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
@testable import EUAHeadless
import FoundationEssentials
import EUATestSupport
import Testing

@Suite("headless follow mode: HTML forms", .onOwnThreads)
struct HTMLFormTests {
    @Test("oidc-provider-mock's page: two forms, the one with 'sub' is chosen by the fields given")
    func mockPage() {
        let html = """
            <!doctype html><html><main>
            <form method="post" style="display: contents">
              <input type="text" name="sub" placeholder="sub" required autofocus />
              <button type="submit">Authorize</button>
            </form>
            <form method="post">
              <button type="submit" name="action" value="deny" class="contrast">Deny</button>
            </form></main></html>
            """
        let forms = HTMLForm.forms(in: html)
        #expect(forms.count == 2)
        #expect(forms[0].method == "POST" && forms[0].action == nil)
        #expect(forms[0].matchCount(["sub"]) == 1 && forms[1].matchCount(["sub"]) == 0)
        #expect(forms[1].submitButtons == [.init(name: "action", value: "deny", label: "Deny")])
        #expect(
            forms[0].submission(filling: [("sub", "alice")], pressing: forms[0].submitButtons.first) == [
                .init(name: "sub", value: "alice")
            ])
    }

    @Test("hidden inputs, quoting styles, entities, checkboxes, selects, textareas, comments and scripts")
    func fields() {
        let html = """
            <!-- <form action="/fake"><input name="no"></form> -->
            <script>var s = "<form><input name='nope'></form>";</script>
            <FORM ACTION='/login?x=1&amp;y=2' Method=POST>
              <input type=hidden name=csrf value="a&quot;b&#39;c&#x41;">
              <input type="hidden" name='session' value='s 1'>
              <input type="password" name="password">
              <input type="checkbox" name="remember" checked>
              <input type="checkbox" name="spam" value="yes">
              <input type="radio" name="color" value="red"><input type="radio" name="color" value="blue" checked>
              <input type="file" name="upload"><input type="submit" name="go" value="Go">
              <input name="disabled" value="x" disabled>
              <select name="lang"><option value="en">English<option value="fr" selected>French</select>
              <textarea name="note">Hello &amp; bye</textarea>
            </FORM>
            """
        let forms = HTMLForm.forms(in: html)
        #expect(forms.count == 1)
        let form = forms[0]
        #expect(form.action == "/login?x=1&y=2" && form.method == "POST")
        let fields = Dictionary(uniqueKeysWithValues: form.fields.map { ($0.name, $0.value) })
        #expect(
            fields == [
                "csrf": "a\"b'cA", "session": "s 1", "password": "", "remember": "on", "color": "blue",
                "lang": "fr", "note": "Hello & bye",
            ])
        #expect(form.submitButtons == [.init(name: "go", value: "Go")])
        let submitted = form.submission(
            filling: [("password", "pw"), ("go", "Go"), ("extra", "1")], pressing: form.submitButtons.first)
        #expect(submitted.first { $0.name == "password" }?.value == "pw")
        #expect(submitted.contains(.init(name: "go", value: "Go", type: "submit")))
        #expect(!submitted.contains { $0.name == "extra" }, "a value for a field the form lacks is not sent")
    }

    @Test("broken HTML does not crash and yields what it can")
    func broken() {
        #expect(HTMLForm.forms(in: "").isEmpty)
        #expect(HTMLForm.forms(in: "<form><input name=\"a\" value=\"unterminated").count == 1)
        #expect(HTMLForm.forms(in: "<<<>>> </ > <form").count == 1)
        #expect(HTMLForm.forms(in: "<!-- never closed <form>").isEmpty)
    }

    @Test("follow mode options: form.NAME and max-steps")
    func options() throws {
        let script = try HeadlessScript(options: ["mode": "follow", "form.sub": "alice", "max-steps": "5"])
        #expect(script.mode == .follow && script.maximumSteps == 5)
        #expect(script.formFields.map(\.name) == ["sub"] && script.formFields.map(\.value) == ["alice"])
        #expect(throws: (any Error).self) { try HeadlessScript(options: ["form.": "x"]) }
        #expect(throws: (any Error).self) { try HeadlessScript(options: ["max-steps": "0"]) }
    }
}
