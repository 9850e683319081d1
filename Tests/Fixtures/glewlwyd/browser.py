#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A browser stand-in for Glewlwyd's login page, which is a JavaScript app (login.html + login.js) that no
HTML-form follower can use. Run as $BROWSER by the system-browser agent: `browser.py URL`.

It does what a person's browser does with that page: GETs the URL with one cookie jar, follows redirects, and on
the provider's login page (`/login.html?client_id=…&scope=…&callback_url=…`) makes the calls login.js makes —
POST /api/auth/ with the user name and password (the login form), PUT /api/auth/grant/CLIENT with the requested
scopes (the consent page's Grant button) — then goes back to `callback_url` with `g_continue` added, as login.js's
Continue button does, and follows redirects
until it leaves the provider: that last GET (the loopback redirect URI) is the hand-off to the signing-in program.

A sign-out it walks the same way. Opened at `eua`'s one-time loopback page (`/eua-hand-off/…`, a form that a script
submits at once), it submits that form as a browser does (GET or POST); on the provider's end-session page
(`/login.html?prompt=end_session&sid=…`) it makes the calls EndSession.js makes when the person confirms — GET
/api/PLUGIN/session/SID/CLIENT, DELETE /api/PLUGIN/session/SID, DELETE /api/auth/ — then goes to `callback_url`.
Its cookies are kept in GLEWLWYD_BROWSER_COOKIES (when set) between runs, as a browser keeps them.

Environment: GLEWLWYD_BROWSER_USERNAME, GLEWLWYD_BROWSER_PASSWORD (the person), GLEWLWYD_BROWSER_RECORD (a file it
appends one JSON line to per request: method, path, status — never a query value, so no code or token).
Every request has a 10 s deadline and the whole walk 60 s; at most 20 requests.
"""
import html.parser
import http.cookiejar
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

REQUEST_TIMEOUT = 10
WALK_DEADLINE = 60
MAXIMUM_REQUESTS = 20


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class FormReader(html.parser.HTMLParser):
    """The first form of a page: its method, action and fields (hidden and text inputs), in order."""

    def __init__(self):
        super().__init__()
        self.form = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form" and self.form is None:
            self.form = {"method": (attributes.get("method") or "get").lower(), "action": attributes.get("action") or "",
                         "fields": []}
        elif tag == "input" and self.form is not None and attributes.get("name"):
            self.form["fields"].append((attributes["name"], attributes.get("value") or ""))


class Browser:
    def __init__(self, record, cookies=None):
        self.jar = http.cookiejar.MozillaCookieJar(cookies) if cookies else http.cookiejar.CookieJar()
        if cookies and os.path.exists(cookies):
            self.jar.load(ignore_discard=True, ignore_expires=True)
        self.cookies = cookies
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect())
        self.record = record
        self.requests = 0
        self.deadline = time.monotonic() + WALK_DEADLINE

    def save(self):
        if self.cookies:
            self.jar.save(ignore_discard=True, ignore_expires=True)
            os.chmod(self.cookies, 0o600)

    def fetch(self, method, url, body=None, form=None):
        self.requests += 1
        if self.requests > MAXIMUM_REQUESTS or time.monotonic() > self.deadline:
            raise SystemExit(f"browser stand-in: gave up after {self.requests - 1} requests at {url.split('?')[0]}")
        headers = {}
        data = None
        if form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self.opener.open(request, timeout=REQUEST_TIMEOUT) as response:
                status, headers, text = response.status, response.headers, response.read().decode(errors="replace")
        except urllib.error.HTTPError as error:
            status, headers, text = error.code, error.headers, error.read().decode(errors="replace")
        parts = urllib.parse.urlsplit(url)
        entry = {"method": method, "path": parts.path, "status": status,
                 "query": sorted(urllib.parse.parse_qs(parts.query).keys())}
        if self.record:
            with open(self.record, "a") as handle:
                handle.write(json.dumps(entry) + "\n")
        return status, headers, text


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: browser.py URL")
    username = os.environ.get("GLEWLWYD_BROWSER_USERNAME", "")
    password = os.environ.get("GLEWLWYD_BROWSER_PASSWORD", "")
    browser = Browser(os.environ.get("GLEWLWYD_BROWSER_RECORD"), os.environ.get("GLEWLWYD_BROWSER_COOKIES"))
    try:
        walk(browser, sys.argv[1], username, password)
    finally:
        browser.save()


def walk(browser, url, username, password):
    method, form = "GET", None
    if urllib.parse.urlsplit(url).path.startswith("/eua-hand-off/"):
        # eua's one-time page: its script submits the form at once; so does this browser.
        status, _, text = browser.fetch("GET", url)
        reader = FormReader()
        reader.feed(text)
        if status != 200 or reader.form is None:
            raise SystemExit(f"browser stand-in: the hand-off page answered {status} without a form")
        action = urllib.parse.urljoin(url, reader.form["action"])
        if reader.form["method"] == "post":
            method, form, url = "POST", reader.form["fields"], action
        else:
            url = action + ("&" if "?" in action else "?") + urllib.parse.urlencode(reader.form["fields"])
    provider = urllib.parse.urlsplit(url)
    origin = f"{provider.scheme}://{provider.netloc}"
    signed_in = False
    while True:
        status, headers, text = browser.fetch(method, url, form=form)
        method, form = "GET", None
        parts = urllib.parse.urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}" != origin:
            return  # the redirect URI: handed over
        if parts.path.endswith("/login.html") and dict(urllib.parse.parse_qsl(parts.query)).get("prompt") == "end_session":
            # EndSession.js, the person confirming: the session's clients, then the session and the sign-in ended.
            query = dict(urllib.parse.parse_qsl(parts.query))
            plugin, sid, client_id = query.get("plugin"), query.get("sid"), query.get("client_id")
            if not plugin or not sid or not client_id:
                raise SystemExit("browser stand-in: the end-session page was opened without plugin, sid or client_id")
            api = origin + "/api/" + urllib.parse.quote(plugin, safe="")
            sub = "/session/" + urllib.parse.quote(sid, safe="")
            status, _, text = browser.fetch("GET", api + sub + "/" + urllib.parse.quote(client_id, safe=""))
            if status != 200:
                raise SystemExit(f"browser stand-in: the session's clients were refused ({status}): {text[:200]}")
            for target in (api + sub, origin + "/api/auth/"):
                status, _, text = browser.fetch("DELETE", target)
                if status != 200:
                    raise SystemExit(f"browser stand-in: DELETE {urllib.parse.urlsplit(target).path} was refused "
                                     f"({status}): {text[:200]}")
            if not query.get("callback_url"):
                return  # no post-logout redirect: the provider's own "signed out" page
            url = urllib.parse.urljoin(url, query["callback_url"])
            continue
        if parts.path.endswith("/login.html"):
            if signed_in:
                raise SystemExit("browser stand-in: the provider showed its login page again after signing in")
            query = dict(urllib.parse.parse_qsl(parts.query))
            client_id, scope, callback = query.get("client_id"), query.get("scope", ""), query.get("callback_url")
            if not client_id or not callback:
                raise SystemExit(f"browser stand-in: the login page was opened without client_id or callback_url "
                                 f"(prompt={query.get('prompt')}); nothing to sign in to")
            api = origin + "/api"
            status, _, text = browser.fetch("POST", api + "/auth/", {"username": username, "password": password})
            if status != 200:
                raise SystemExit(f"browser stand-in: signing in as {username} was refused ({status}): {text}")
            status, _, text = browser.fetch("PUT", api + "/auth/grant/" + urllib.parse.quote(client_id, safe=""),
                                            {"scope": scope})
            if status != 200:
                raise SystemExit(f"browser stand-in: granting {scope} to {client_id} was refused ({status}): {text}")
            signed_in = True
            # login.js's "Continue" button: back to the authorization endpoint with g_continue.
            url = urllib.parse.urljoin(url, callback + ("&" if "?" in callback else "?") + "g_continue")
            continue
        location = headers.get("Location")
        if status in (301, 302, 303, 307, 308) and location:
            url = urllib.parse.urljoin(url, location)
            continue
        raise SystemExit(f"browser stand-in: the provider answered {parts.path} with {status} and no redirect: "
                         f"{text[:300]}")


if __name__ == "__main__":
    main()
