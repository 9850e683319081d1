# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A tiny provider-like page flow for the headless agent's follow-mode tests, over http or https.

Usage: follow_pages_server.py PORT_FILE LOG_FILE [CERT_FILE KEY_FILE]

Binds 127.0.0.1 on a free port, writes the port to PORT_FILE, and appends one JSON line per request to
LOG_FILE: {"method", "path", "fields": [posted field names], "username"} (never a password). With a certificate
and key it serves https. Pages, like django-oauth-toolkit behind Django's login:

  GET  /authorize?redirect_uri=R&state=S  302 to /login (sets a session cookie, unless nocookie=1 is given)
  GET  /login                             the login form (csrf hidden field, username, password, Log in)
  POST /login                             password "right": 302 to /consent; else the form again with an errorlist
  GET  /consent                           403 without the session cookie; else Cancel / Authorize (name=allow)
  POST /consent                           302 to R?code=good-code&state=S with allow, else R?error=access_denied
  GET  /error                             400, django-oauth-toolkit's error page (Mismatching redirect URI)
  GET  /blank                             200 with text and no form
  GET  /loop, POST /loop                  the same form (no credentials) every time
  GET  /downgrade                         302 to http://127.0.0.1:PORT/login
  GET  /choices                           a form with two buttons, neither granting nor refusing
  GET  /remote-login                      a login form posting to plain http on another host
  GET  /login-307                         a login form posting to /post-307 on this server
  POST /post-307                          307 to http://login.example.invalid/login (the credentials would go again)
  GET  /upgrade?to=URL                    302 to URL (another server, such as this flow over https), setting the
                                          session cookie on the way
"""
import html
import json
import os
import signal
import ssl
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT_FILE, LOG_FILE = sys.argv[1], sys.argv[2]
CERT = sys.argv[3:5]
STATE = {"redirect_uri": "", "state": ""}

LOGIN = """<!doctype html><html><head><title>Log in | Provider</title></head><body>
<div id="content"><h1>Log in</h1>{errors}
<form method="post" action="/login?next=/consent">
<input type="hidden" name="csrfmiddlewaretoken" value="tok-{n}">
<p><label for="id_username">Username:</label> <input type="text" name="username" id="id_username" required></p>
<p><label for="id_password">Password:</label> <input type="password" name="password" id="id_password" required></p>
<input type="submit" value="Log in">
</form></div></body></html>"""
LOGIN_ERROR = ('<ul class="errorlist nonfield"><li>Please enter a correct username and password. '
               'Note that both fields may be case-sensitive.</li></ul>')
CONSENT = """<!doctype html><html><body><div class="block-center">
<form id="authorizationForm" method="post">
<h3 class="block-center-heading">Authorize eua-test?</h3>
<input type="hidden" name="csrfmiddlewaretoken" value="tok">
<input type="hidden" name="client_id" value="eua-test">
<p>Application requires the following permissions</p><ul><li>OpenID Connect scope</li></ul>
<div class="control-group"><div class="controls">
<input type="submit" class="btn btn-large" value="Cancel"/>
<input type="submit" class="btn btn-large btn-primary" name="allow" value="Authorize"/>
</div></div></form></div></body></html>"""
ERROR = """<!doctype html><html><head><title>Error</title></head><body><div class="block-center">
<h2>Error: invalid_request</h2>
<p>Mismatching redirect URI.</p>
</div></body></html>"""
LOOP = """<!doctype html><html><body><p>Please confirm again.</p>
<form method="post" action="/loop"><input type="hidden" name="step" value="1"><button type="submit">Continue</button></form>
</body></html>"""
CHOICES = """<!doctype html><html><body><form method="post" action="/choices">
<button type="submit" name="pick" value="red">Red</button><button type="submit" name="pick" value="blue">Blue</button>
</form></body></html>"""


class Handler(BaseHTTPRequestHandler):
    counter = 0

    def log_message(self, *args):
        pass

    def record(self, fields=None, username=None):
        entry = {"method": self.command, "path": self.path.split("?")[0], "fields": fields or [],
                 "username": username, "cookie": "session=" in (self.headers.get("Cookie") or ""),
                 "origin": self.headers.get("Origin")}
        with open(LOG_FILE, "a") as log:
            log.write(json.dumps(entry) + "\n")

    def send(self, status, body, headers=()):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def redirect(self, location, headers=()):
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()

    def back(self, **params):
        query = urllib.parse.urlencode(dict(params, state=STATE["state"]))
        return STATE["redirect_uri"] + "?" + query

    def do_GET(self):
        path, _, query = self.path.partition("?")
        self.record()
        Handler.counter += 1
        if path == "/authorize":
            params = dict(urllib.parse.parse_qsl(query))
            STATE["redirect_uri"], STATE["state"] = params.get("redirect_uri", ""), params.get("state", "")
            cookie = [] if params.get("nocookie") else [("Set-Cookie", "session=s1; Path=/; HttpOnly")]
            self.redirect("/login?next=/consent", cookie)
        elif path == "/upgrade":
            self.redirect(dict(urllib.parse.parse_qsl(query)).get("to", "/"), [("Set-Cookie", "session=s1; Path=/")])
        elif path == "/login":
            self.send(200, LOGIN.format(errors="", n=Handler.counter))
        elif path == "/consent":
            if "session=s1" not in (self.headers.get("Cookie") or ""):
                self.send(403, "<p>No session cookie</p>")
            else:
                self.send(200, CONSENT)
        elif path == "/error":
            self.send(400, ERROR)
        elif path == "/blank":
            self.send(200, "<html><body><p>Thanks for \x1b[31mvisiting</p></body></html>")
        elif path == "/loop":
            self.send(200, LOOP)
        elif path == "/downgrade":
            self.redirect("http://127.0.0.1:%d/login" % self.server.server_address[1])
        elif path == "/choices":
            self.send(200, CHOICES)
        elif path == "/login-307":
            self.send(200, LOGIN.replace('action="/login?next=/consent"', 'action="/post-307"').format(errors="", n=0))
        elif path == "/remote-login":
            self.send(200, LOGIN.replace('action="/login?next=/consent"', 'action="http://login.example.invalid/login"')
                      .format(errors="", n=0))
        else:
            self.send(404, "<p>Not found: %s</p>" % html.escape(path))

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode(), keep_blank_values=True))
        path = self.path.split("?")[0]
        self.record(sorted(form), form.get("username"))
        Handler.counter += 1
        if path == "/login":
            if form.get("password") == "right" and form.get("csrfmiddlewaretoken", "").startswith("tok-"):
                self.redirect("/consent")
            else:
                self.send(200, LOGIN.format(errors=LOGIN_ERROR, n=Handler.counter))
        elif path == "/consent":
            self.redirect(self.back(code="good-code") if "allow" in form else self.back(error="access_denied"))
        elif path == "/loop":
            self.send(200, LOOP)
        elif path == "/post-307":
            self.send(307, "", [("Location", "http://login.example.invalid/login")])
        else:
            self.send(404, "<p>Not found</p>")


# The test stops us with SIGTERM.
signal.signal(signal.SIGTERM, signal.SIG_DFL)
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
if CERT:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(CERT[0], CERT[1])
    server.socket = context.wrap_socket(server.socket, server_side=True)
with open(PORT_FILE + ".tmp", "w") as port_file:
    port_file.write(str(server.server_address[1]))
os.rename(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
