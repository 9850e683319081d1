// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
@testable import EUAHeadless
import EUATestSupport
import Testing

/// Saved pages of real providers (django-oauth-toolkit 3.4.1 behind Django's login view; Keycloak's login and
/// consent pages, trimmed): which form, which fields are credentials, which button is pressed, and the error
/// text a person would read.
@Suite("headless follow mode: real providers' pages", .onOwnThreads)
struct ProviderPagesTests {
    static let djangoLoginWithErrors = """
        <!DOCTYPE html><html lang="en-us"><head><title>Log in | Django site admin</title>
        <script>window.x = "<form><input name='fake'></form>";</script></head>
        <body class="login"><div id="container"><div id="content" class="colM">
        <p class="errornote">Please enter the correct username and password for a staff account. Note that both fields may be case-sensitive.</p>
        <div id="content-main">
        <form action="/accounts/login/?next=/o/authorize/%3Fclient_id%3Dabc" method="post" id="login-form">
        <input type="hidden" name="csrfmiddlewaretoken" value="Xy1&amp;2">
        <ul class="errorlist nonfield"><li>Please enter a correct username and password. Note that both fields may be case-sensitive.</li></ul>
        <div class="form-row"><label class="required" for="id_username">Username:</label>
        <input type="text" name="username" value="alice" autofocus autocapitalize="none" autocomplete="username" maxlength="150" required id="id_username"></div>
        <div class="form-row"><label class="required" for="id_password">Password:</label>
        <input type="password" name="password" autocomplete="current-password" required id="id_password"></div>
        <input type="hidden" name="next" value="/o/authorize/?client_id=abc">
        <div class="submit-row"><input type="submit" value="Log in"></div>
        </form></div></div></div></body></html>
        """

    static let djangoOAuthToolkitConsent = """
        <!DOCTYPE html><html lang="en"><head><title>Django OAuth Toolkit</title></head><body><div class="container">
        <div class="block-center">
            <form id="authorizationForm" method="post">
                <h3 class="block-center-heading">Authorize eua-test?</h3>
                <input type="hidden" name="csrfmiddlewaretoken" value="tok">
                <input type="hidden" name="redirect_uri" value="http://127.0.0.1:8400/callback" id="id_redirect_uri">
                <input type="hidden" name="scope" value="openid email" id="id_scope">
                <input type="hidden" name="nonce" value="n-1" id="id_nonce">
                <input type="hidden" name="client_id" value="abc" id="id_client_id">
                <input type="hidden" name="state" value="st" id="id_state">
                <input type="hidden" name="response_type" value="code" id="id_response_type">
                <input type="hidden" name="code_challenge" value="ch" id="id_code_challenge">
                <input type="hidden" name="code_challenge_method" value="S256" id="id_code_challenge_method">
                <p>Application requires the following permissions</p>
                <ul><li>OpenID connect</li><li>Email</li></ul>
                <div class="control-group"><div class="controls">
                    <input type="submit" class="btn btn-large" value="Cancel"/>
                    <input type="submit" class="btn btn-large btn-primary" name="allow" value="Authorize"/>
                </div></div>
            </form>
        </div></div></body></html>
        """

    static let djangoOAuthToolkitError = """
        <!DOCTYPE html><html lang="en"><head><title>Django OAuth Toolkit</title></head><body><div class="container">
        <div class="block-center">
            <h2>Error: invalid_request</h2>
            <p>Mismatching redirect URI.</p>
        </div></div></body></html>
        """

    static let keycloakLogin = """
        <!DOCTYPE html><html class="login-pf"><head><title>Sign in to demo</title></head><body>
        <div class="alert-error pf-c-alert pf-m-inline pf-m-danger">
          <div class="pf-c-alert__icon"><span class="fa fa-fw fa-exclamation-circle"></span></div>
          <span class="pf-c-alert__title kc-feedback-text">Invalid username or password.</span>
        </div>
        <form id="kc-form-login" onsubmit="login.disabled = true; return true;" action="https://sso.example.com/realms/demo/login-actions/authenticate?session_code=s&amp;execution=e&amp;client_id=eua&amp;tab_id=t" method="post">
          <input tabindex="1" id="username" class="pf-c-form-control" name="username" value="alice" type="text" autofocus autocomplete="off" aria-invalid="true"/>
          <span id="input-error" class="pf-c-form__helper-text pf-m-error required kc-feedback-text" aria-live="polite">Invalid username or password.</span>
          <input tabindex="2" id="password" class="pf-c-form-control" name="password" type="password" autocomplete="off" aria-invalid="true"/>
          <div id="kc-form-options"><span><a tabindex="5" href="/realms/demo/login-actions/reset-credentials">Forgot Password?</a></span></div>
          <input type="hidden" id="id-hidden-input" name="credentialId"/>
          <input tabindex="4" class="pf-c-button pf-m-primary pf-m-block btn-lg" name="login" id="kc-login" type="submit" value="Sign In"/>
        </form>
        <span class="hidden-error" style="display: none">do not show</span>
        </body></html>
        """

    static let keycloakConsent = """
        <!DOCTYPE html><html><body><div id="kc-oauth" class="content-area"><h3>Do you grant these access privileges?</h3>
        <ul><li><span>User profile</span></li><li><span>Email address</span></li></ul>
        <form class="form-actions" action="https://sso.example.com/realms/demo/login-actions/consent?session_code=s&amp;client_id=eua&amp;tab_id=t" method="POST">
          <input type="hidden" name="code" value="c-1">
          <div id="kc-form-buttons"><div class="pf-c-form__actions">
            <input class="pf-c-button pf-m-primary pf-m-large" name="accept" id="kc-login" type="submit" value="Yes"/>
            <input class="pf-c-button pf-m-secondary pf-m-large" name="cancel" id="kc-cancel" type="submit" value="No"/>
          </div></div>
        </form></div></body></html>
        """

    @Test("Django's login page: username and password are the credentials; the error list is the refusal text")
    func djangoLogin() throws {
        let form = try #require(HTMLForm.forms(in: Self.djangoLoginWithErrors).first)
        #expect(HTMLForm.forms(in: Self.djangoLoginWithErrors).count == 1, "the form inside a script is not a form")
        let given = [(name: "username", value: "alice"), (name: "password", value: "pw")]
        #expect(form.credentialFields(given: given).map(\.name) == ["username", "password"])
        #expect(
            form.credentialFields(given: []).map(\.name) == ["password"],
            "a password field is a credential even when no option fills it")
        let button = try SubmitButtonRule.button(in: form, choice: nil, given: given)
        #expect(button == .init(name: "", value: "Log in"))
        let sent = form.submission(filling: given, pressing: button)
        #expect(
            sent.map(\.name) == ["csrfmiddlewaretoken", "username", "password", "next"],
            "an unnamed button sends nothing")
        #expect(sent.first?.value == "Xy1&2")
        #expect(
            PageText.errorText(in: Self.djangoLoginWithErrors)
                == "Please enter the correct username and password for a staff account. Note that both fields may be case-sensitive. "
                + "Please enter a correct username and password. Note that both fields may be case-sensitive.")
    }

    @Test("django-oauth-toolkit's consent page: Authorize (name=allow) is pressed, never Cancel; no credentials")
    func djangoConsent() throws {
        let form = try #require(HTMLForm.forms(in: Self.djangoOAuthToolkitConsent).first)
        #expect(form.credentialFields(given: []).isEmpty)
        #expect(form.submitButtons.count == 2)
        let button = try SubmitButtonRule.button(in: form, choice: nil, given: [])
        #expect(button == .init(name: "allow", value: "Authorize"))
        #expect(
            form.submission(filling: [], pressing: button).last
                == .init(name: "allow", value: "Authorize", type: "submit"))
        #expect(!SubmitButtonRule.grants(form.submitButtons[0]), "Cancel never grants")
    }

    @Test("django-oauth-toolkit's error page: its visible text, markup gone")
    func djangoError() {
        #expect(HTMLForm.forms(in: Self.djangoOAuthToolkitError).isEmpty)
        #expect(
            PageText.visibleText(in: Self.djangoOAuthToolkitError) == "Error: invalid_request Mismatching redirect URI."
        )
    }

    @Test("Keycloak's login page: one Sign In button; the error said once, hidden text left out")
    func keycloakLogin() throws {
        let form = try #require(HTMLForm.forms(in: Self.keycloakLogin).first)
        #expect(
            form.action
                == "https://sso.example.com/realms/demo/login-actions/authenticate?session_code=s&execution=e&client_id=eua&tab_id=t"
        )
        #expect(
            form.credentialFields(given: [("username", "alice"), ("password", "pw")]).map(\.name) == [
                "username", "password",
            ])
        #expect(try SubmitButtonRule.button(in: form, choice: nil, given: []) == .init(name: "login", value: "Sign In"))
        #expect(PageText.errorText(in: Self.keycloakLogin) == "Invalid username or password.")
    }

    @Test("Keycloak's consent page: accept=Yes, never cancel=No; submit=cancel would choose it on purpose")
    func keycloakConsent() throws {
        let form = try #require(HTMLForm.forms(in: Self.keycloakConsent).first)
        #expect(try SubmitButtonRule.button(in: form, choice: nil, given: []) == .init(name: "accept", value: "Yes"))
        #expect(
            try SubmitButtonRule.button(in: form, choice: SubmitButtonRule.Choice("cancel"), given: [])
                == .init(name: "cancel", value: "No"))
        #expect(
            try SubmitButtonRule.button(in: form, choice: SubmitButtonRule.Choice("cancel=Maybe"), given: [])
                == .init(name: "accept", value: "Yes"),
            "a submit= option that matches no button leaves the rule to choose")
    }

    @Test("the rule: a lone refusing button is never pressed; several without a granting one are listed")
    func rule() throws {
        let lone = try #require(HTMLForm.forms(in: "<form><button type=submit name=x>Cancel</button></form>").first)
        #expect(throws: SubmitButtonRule.NoMatch.self) { try SubmitButtonRule.button(in: lone, choice: nil, given: []) }
        let local = try #require(
            HTMLForm.forms(
                in: """
                    <form method="post"><input name="username" value="alice">
                    <button type="submit" name="action" value="approve">Sign in</button>
                    <button type="submit" name="action" value="deny">Deny</button></form>
                    """
            ).first)
        #expect(
            try SubmitButtonRule.button(in: local, choice: nil, given: [])
                == .init(name: "action", value: "approve", label: "Sign in"))
        #expect(
            try SubmitButtonRule.button(in: local, choice: nil, given: [("action", "deny")])
                == .init(name: "action", value: "deny", label: "Deny"),
            "form.action=deny presses Deny, as before")
        #expect(SubmitButtonRule.words(of: .init(name: "", value: "", label: "Log in")).contains("login"))
    }

    @Test("page text is escaped for a terminal and cut")
    func escaping() {
        let html =
            "<p role=alert>\u{1B}]0;owned\u{07} \u{202E}evil</p><p>" + String(repeating: "x", count: 1000) + "</p>"
        let error = PageText.errorText(in: html)
        #expect(error == "\\x1b]0;owned\\x07 \\u{202e}evil")
        let all = PageText.visibleText(in: html)
        #expect(all.hasSuffix("…") && !all.contains("\u{1B}"))
        #expect(
            PageText.visibleText(in: "<html><head><title>Only a title</title></head><body></body></html>")
                == "Only a title")
    }

    @Test("broken markup: stray end tags, unclosed elements and a lone '<' still give the words, never a crash")
    func brokenMarkup() {
        #expect(PageText.errorText(in: "</p></div><div class=\"alert\">Locked <b>out") == "Locked out")
        #expect(PageText.visibleText(in: "<p>a < b</p></span></html><p>c") == "a b c")
        #expect(PageText.errorText(in: "<p>no error here</p>") == nil)
        #expect(PageText.visibleText(in: "") == "")
    }
}
