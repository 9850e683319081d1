#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Glewlwyd 2.7 (Debian package `glewlwyd`, a C OpenID Connect provider nobody here wrote) as a real provider for
the end-to-end tests: its own binary, its own SQLite schema, configured only through its config file and its own
admin API (as an administrator would in its admin web app), served on 127.0.0.1.

The OpenID Connect plugin instance `oidc` is added with what a deployment that wants them turns on: RS256 ID tokens
(a key made at start), PKCE, pushed authorization requests (RFC 9126; `--par-required` makes them mandatory), DPoP
(RFC 9449; the draft 07 Glewlwyd implements), refresh tokens, revocation and introspection (RFC 7009, RFC 7662),
the device grant, session management with its end-session endpoint (RP-initiated logout), and open dynamic client
registration (RFC 7591).

Every wait has a deadline: the server must answer within --timeout seconds; each admin request within 10 s.

Usage (DIR holds the config, the database, the key, the log and the admin's session cookie, 0600):
  provider.py serve --dir DIR [--par-required] [--timeout S]
      prints "listening http://127.0.0.1:PORT" on stdout once configured; the issuer is that URL + "/api/oidc"
  provider.py user --dir DIR --username U --password P [--name N] [--email E]
  provider.py client --dir DIR --client-id ID [--secret S] [--redirect-uri URI ...] [--post-logout-redirect-uri URI]
                     [--dpop-required]
      without --secret the client is public; with it, confidential (client_secret_basic or client_secret_post)
  provider.py records --dir DIR
      one JSON object: what the provider's database holds (registered_clients, par, codes, refresh_tokens,
      access_tokens, dpop_proofs)
  provider.py introspect --dir DIR --client-id ID --secret S --token T
      the provider's introspection answer for a token of that confidential client, as JSON
"""
import argparse
import base64
import gzip
import http.cookiejar
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

PLUGIN = "oidc"
ADMIN_USERNAME, ADMIN_PASSWORD = "admin", "password"  # what Glewlwyd's own database init script creates
SCHEMA = "/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz"
MODULES = "/usr/lib/glewlwyd"
WEBAPP = "/usr/share/glewlwyd/webapp/"
SCOPES = ["openid", "profile", "email"]
REQUEST_TIMEOUT = 10


CHILDREN = []


def fail(message):
    print("glewlwyd fixture: " + message, file=sys.stderr)
    for child in CHILDREN:
        child.terminate()
    sys.exit(1)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_private(path, text):
    temporary = path + ".tmp"
    with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as handle:
        handle.write(text)
    os.replace(temporary, path)


def config_text(folder, port):
    return f"""port={port}
bind_address="127.0.0.1"
external_url="http://127.0.0.1:{port}"
login_url="login.html"
api_prefix="api"
static_files_path="{WEBAPP}"
allow_origin="*"
log_mode="file"
log_level="INFO"
log_file="{folder}/glewlwyd.log"
cookie_secure=0
session_expiration=3600
session_key="GLEWLWYD2_SESSION_ID"
admin_scope="g_admin"
profile_scope="g_profile"
admin_session_authentication="cookie"
profile_session_authentication="cookie"
login_api_enabled=true
allow_multiple_user_per_session=false
user_module_path="{MODULES}/user"
client_module_path="{MODULES}/client"
user_auth_scheme_module_path="{MODULES}/scheme"
plugin_module_path="{MODULES}/plugin"
hash_algorithm="SHA512"
database =
{{
  type = "sqlite3"
  path = "{folder}/glewlwyd.db"
}};
static_files_mime_types =
(
  {{ extension = ".html" mime_type = "text/html" }},
  {{ extension = ".js" mime_type = "application/javascript" }},
  {{ extension = ".json" mime_type = "application/json" }},
  {{ extension = ".css" mime_type = "text/css" }}
)
"""


class Admin:
    """Glewlwyd's admin API, signed in as its administrator with a session cookie (as its admin web app is)."""

    def __init__(self, base_url, folder):
        self.base_url = base_url
        self.jar = http.cookiejar.MozillaCookieJar(os.path.join(folder, "admin-cookies.txt"))
        if os.path.exists(self.jar.filename):
            self.jar.load(ignore_discard=True, ignore_expires=True)
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def request(self, method, path, body=None, expect=(200,)):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base_url + "/api" + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"} if data else {})
        try:
            with self.opener.open(request, timeout=REQUEST_TIMEOUT) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode(errors="replace")
        if status not in expect:
            fail(f"admin API {method} {path} answered {status}: {text}")
        return json.loads(text) if text.strip() else None

    def sign_in(self):
        self.request("POST", "/auth/", {"username": ADMIN_USERNAME, "password": ADMIN_PASSWORD})
        self.jar.save(ignore_discard=True, ignore_expires=True)
        os.chmod(self.jar.filename, 0o600)


def plugin_parameters(issuer, folder, par_required):
    with open(os.path.join(folder, "oidc-key.pem")) as handle:
        key = handle.read()
    with open(os.path.join(folder, "oidc-public.pem")) as handle:
        public = handle.read()
    return {
        "iss": issuer,
        "jwt-type": "rsa",
        "jwt-key-size": "256",
        "key": key,
        "cert": public,
        "access-token-duration": 3600,
        "refresh-token-duration": 1209600,
        "code-duration": 600,
        "refresh-token-rolling": True,
        "refresh-token-one-use": "never",
        "allow-non-oidc": False,
        "auth-type-code-enabled": True,
        "auth-type-token-enabled": False,
        "auth-type-id-token-enabled": False,
        "auth-type-password-enabled": False,
        "auth-type-client-enabled": False,
        "auth-type-device-enabled": True,
        "auth-type-refresh-enabled": True,
        "scope": [],
        "allowed-scope": SCOPES,
        "subject-type": "public",
        "claims": [],
        "name-claim": "on-demand",
        "name-claim-scope": ["profile"],
        "email-claim": "on-demand",
        "email-claim-scope": ["email"],
        "pkce-allowed": True,
        "pkce-method-plain-allowed": False,
        "introspection-revocation-allowed": True,
        "introspection-revocation-allow-target-client": True,
        "introspection-revocation-auth-scope": [],
        "register-client-allowed": True,  # open dynamic registration (RFC 7591), as the admin may choose
        "register-client-auth-scope": [],
        "register-client-credentials-scope": SCOPES,
        "register-client-management-allowed": False,
        "session-management-allowed": True,
        # The end-session page sends the browser back to post_logout_redirect_uri only with front-channel logout on.
        "front-channel-logout-allowed": True,
        "session-cookie-name": "GLEWLWYD2_OIDC_SID",
        "session-cookie-expiration": 3600,
        "oauth-par-allowed": True,
        "oauth-par-required": par_required,
        "oauth-par-request_uri-prefix": "urn:ietf:params:oauth:request_uri:",
        "oauth-par-duration": 90,
        "oauth-dpop-allowed": True,
        "oauth-dpop-iat-duration": 60,
        "oauth-dpop-dpop_bound_access_tokens-property": "dpop_client_bound",
        "device-authorization-expiration": 600,
        "device-authorization-interval": 1,
        "resource-allowed": False,
        "oauth-rar-allowed": False,
        "oauth-ciba-allowed": False,
        "request-parameter-allow": False,
        "encrypt-out-token-allow": False,
    }


def serve(arguments):
    folder = os.path.abspath(arguments.dir)
    os.makedirs(folder, exist_ok=True)
    key = os.path.join(folder, "oidc-key.pem")
    subprocess.run(["openssl", "genrsa", "-out", key, "2048"], check=True, capture_output=True, timeout=60)
    os.chmod(key, 0o600)
    subprocess.run(["openssl", "rsa", "-in", key, "-pubout", "-out", os.path.join(folder, "oidc-public.pem")],
                   check=True, capture_output=True, timeout=60)
    database = os.path.join(folder, "glewlwyd.db")
    with gzip.open(SCHEMA, "rt") as handle, sqlite3.connect(database) as connection:
        connection.executescript(handle.read())
    os.chmod(database, 0o600)

    deadline = time.monotonic() + arguments.timeout
    child = None
    for attempt in range(5):
        port = free_port()
        config = os.path.join(folder, "glewlwyd.conf")
        write_private(config, config_text(folder, port))
        output = open(os.path.join(folder, "glewlwyd.out"), "a")
        child = subprocess.Popen(["glewlwyd", "--config-file=" + config], stdin=subprocess.DEVNULL, stdout=output,
                                 stderr=subprocess.STDOUT)
        CHILDREN[:] = [child]
        base_url = f"http://127.0.0.1:{port}"
        while time.monotonic() < deadline and child.poll() is None:
            try:
                with urllib.request.urlopen(base_url + "/api/" + PLUGIN + "/.well-known/openid-configuration",
                                            timeout=2) as response:
                    response.read()
                break
            except urllib.error.HTTPError:
                break  # it answers (the plugin is not there yet)
            except OSError:
                time.sleep(0.05)
        if child.poll() is None:
            break
        if time.monotonic() >= deadline:
            break
    if child is None or child.poll() is not None:
        fail(f"glewlwyd exited at start (is the Debian package installed? run scripts/bootstrap); see {folder}/glewlwyd.out")
    if time.monotonic() >= deadline:
        child.terminate()
        fail(f"glewlwyd did not answer within {arguments.timeout} s; see {folder}/glewlwyd.log")

    def stop(*_):
        child.terminate()
        try:
            child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            child.kill()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    with open(os.path.join(folder, "base-url"), "w") as handle:
        handle.write(base_url)
    admin = Admin(base_url, folder)
    admin.sign_in()
    for scope in ["profile", "email"]:
        admin.request("POST", "/scope/", {"name": scope, "display_name": scope, "description": f"the {scope} claims",
                                          "password_required": True, "password_max_age": 0, "scheme": {}})
    admin.request("PUT", "/scope/openid", {"name": "openid", "display_name": "Open ID", "description": "OpenID Connect",
                                           "password_required": True, "password_max_age": 0, "scheme": {}})
    # The end-session endpoint checks a client's post_logout_redirect_uris (an array), which the default client
    # module's data format does not hold (it has a single post_logout_redirect_uri): the admin adds it.
    module = admin.request("GET", "/mod/client/database")
    module["parameters"]["data-format"]["post_logout_redirect_uris"] = {"multiple": True, "read": True, "write": True}
    admin.request("PUT", "/mod/client/database", {key: module[key] for key in
                                                   ("module", "name", "display_name", "order", "parameters", "readonly")
                                                   if key in module})
    admin.request("PUT", "/mod/client/database/reset")
    issuer = base_url + "/api/" + PLUGIN
    admin.request("POST", "/mod/plugin/", {"module": "oidc", "name": PLUGIN, "display_name": "OpenID Connect",
                                           "enabled": True,
                                           "parameters": plugin_parameters(issuer, folder, arguments.par_required)})
    discovery = base_url + "/api/" + PLUGIN + "/.well-known/openid-configuration"
    while True:
        try:
            with urllib.request.urlopen(discovery, timeout=2) as response:
                json.loads(response.read())
            break
        except (OSError, ValueError):
            if time.monotonic() >= deadline:
                stop()
            time.sleep(0.05)
    print("listening " + base_url, flush=True)
    parent = os.getppid()
    while child.poll() is None:
        if os.getppid() != parent:
            stop()  # the test process is gone: take the server with it
        time.sleep(0.2)
    fail(f"glewlwyd exited ({child.returncode}); see {folder}/glewlwyd.log")


def base_url(folder):
    with open(os.path.join(folder, "base-url")) as handle:
        return handle.read().strip()


def add_user(arguments):
    admin = Admin(base_url(arguments.dir), arguments.dir)
    user = {"username": arguments.username, "password": arguments.password, "name": arguments.name or "",
            "email": arguments.email or "", "scope": SCOPES, "enabled": True}
    admin.request("POST", "/user/", user)


def add_client(arguments):
    admin = Admin(base_url(arguments.dir), arguments.dir)
    client = {"client_id": arguments.client_id, "name": arguments.client_id, "confidential": arguments.secret is not None,
              "redirect_uri": arguments.redirect_uri or [],
              "authorization_type": ["code", "refresh_token", "device_authorization"],
              "scope": SCOPES, "enabled": True}
    if arguments.secret is not None:
        client["client_secret"] = arguments.secret
        client["token_endpoint_auth_method"] = ["client_secret_basic", "client_secret_post"]
    if arguments.post_logout_redirect_uri:
        client["post_logout_redirect_uris"] = [arguments.post_logout_redirect_uri]
    if arguments.dpop_required:
        client["dpop_client_bound"] = "1"
    admin.request("POST", "/client/", client)


def records(arguments):
    """What the provider stored: Glewlwyd keeps hashes of codes and tokens, and the DPoP key thumbprint (jkt)."""
    connection = sqlite3.connect(os.path.join(arguments.dir, "glewlwyd.db"), timeout=10)
    connection.row_factory = sqlite3.Row

    def rows(query):
        return [dict(row) for row in connection.execute(query)]

    result = {
        "registered_clients": [row["client_id"] for row in rows(
            "SELECT gpocr_cient_id AS client_id FROM gpo_client_registration ORDER BY gpocr_id")],
        "par": rows("SELECT gpop_client_id AS client_id, gpop_redirect_uri AS redirect_uri, gpop_status AS status, "
                    "gpop_dpop_jkt AS jkt, gpop_username AS username, "
                    "gpop_code_challenge IS NOT NULL AS has_code_challenge FROM gpo_par ORDER BY gpop_id"),
        "codes": rows("SELECT gpoc_client_id AS client_id, gpoc_username AS username, gpoc_redirect_uri AS redirect_uri, "
                      "gpoc_dpop_jkt AS jkt, gpoc_enabled AS enabled FROM gpo_code ORDER BY gpoc_id"),
        "refresh_tokens": rows("SELECT gpor_client_id AS client_id, gpor_username AS username, gpor_token_hash AS "
                               "token_hash, gpor_dpop_jkt AS jkt, gpor_enabled AS enabled FROM gpo_refresh_token "
                               "ORDER BY gpor_id"),
        "access_tokens": rows("SELECT gpoa_client_id AS client_id, gpoa_username AS username, gpoa_jti AS jti, "
                              "gpoa_enabled AS enabled FROM gpo_access_token ORDER BY gpoa_id"),
        "user_sessions": rows("SELECT gus_username AS username, gus_enabled AS enabled FROM g_user_session ORDER BY gus_id"),
        "dpop_proofs": rows("SELECT gpod_client_id AS client_id, gpod_jkt AS jkt, gpod_htm AS htm, gpod_htu AS htu "
                            "FROM gpo_dpop ORDER BY gpod_id"),
    }
    print(json.dumps(result))


def introspect(arguments):
    """Glewlwyd lets a confidential client introspect its own tokens (introspection-revocation-allow-target-client)."""
    form = urllib.parse.urlencode({"token": arguments.token}).encode()
    url = base_url(arguments.dir) + "/api/" + PLUGIN + "/introspect"
    basic = base64.b64encode(f"{arguments.client_id}:{arguments.secret}".encode()).decode()
    request = urllib.request.Request(url, data=form, method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded",
                                              "Accept": "application/json", "Authorization": "Basic " + basic})
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as response:
            print(response.read().decode())
    except urllib.error.HTTPError as error:
        fail(f"introspection answered {error.code}: {error.read().decode(errors='replace')}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve")
    serve_parser.add_argument("--par-required", action="store_true")
    serve_parser.add_argument("--timeout", type=float, default=60)
    user_parser = commands.add_parser("user")
    user_parser.add_argument("--username", required=True)
    user_parser.add_argument("--password", required=True)
    user_parser.add_argument("--name")
    user_parser.add_argument("--email")
    client_parser = commands.add_parser("client")
    client_parser.add_argument("--client-id", required=True)
    client_parser.add_argument("--secret")
    client_parser.add_argument("--redirect-uri", action="append")
    client_parser.add_argument("--post-logout-redirect-uri")
    client_parser.add_argument("--dpop-required", action="store_true")
    commands.add_parser("records")
    introspect_parser = commands.add_parser("introspect")
    introspect_parser.add_argument("--client-id", required=True)
    introspect_parser.add_argument("--secret", required=True)
    introspect_parser.add_argument("--token", required=True)
    for sub in commands.choices.values():
        sub.add_argument("--dir", required=True)
    arguments = parser.parse_args()
    {"serve": serve, "user": add_user, "client": add_client, "records": records,
     "introspect": introspect}[arguments.command](arguments)


if __name__ == "__main__":
    main()
