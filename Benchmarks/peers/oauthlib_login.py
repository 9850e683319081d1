# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The peer for the full-login measure: google-auth-oauthlib's InstalledAppFlow.run_local_server against
oidc-provider-mock, with a scripted "browser" (webbrowser replaced) that POSTs the mock's form with
sub=alice and follows the redirect into the loopback server, as our headless agent's follow mode does.
Usage: python3 oauthlib_login.py ISSUER. Prints the token response's keys on success."""
import os
import sys
import threading
import webbrowser

os.environ.setdefault("OAUTHLIB_INSECURE_TRANSPORT", "1")

import requests
from google_auth_oauthlib.flow import InstalledAppFlow

issuer = sys.argv[1]


class ScriptedBrowser(webbrowser.BaseBrowser):
    def open(self, url, new=0, autoraise=True):
        def run():
            page = requests.get(url, allow_redirects=False)
            answer = requests.post(url, data={"sub": "alice"}, allow_redirects=False, cookies=page.cookies)
            requests.get(answer.headers["Location"], allow_redirects=False)
        threading.Thread(target=run, daemon=True).start()
        return True


webbrowser.register("scripted", None, ScriptedBrowser("scripted"), preferred=True)
config = {"installed": {
    "client_id": "c", "client_secret": "s",
    "auth_uri": issuer + "/oauth2/authorize", "token_uri": issuer + "/oauth2/token",
    "redirect_uris": ["http://localhost"],
}}
flow = InstalledAppFlow.from_client_config(config, scopes=["openid", "email"])
credentials = flow.run_local_server(host="127.0.0.1", port=0, open_browser=True, browser="scripted",
                                    authorization_prompt_message="", success_message="done")
print(sorted(k for k in ("token", "id_token", "refresh_token") if getattr(credentials, k, None)))
