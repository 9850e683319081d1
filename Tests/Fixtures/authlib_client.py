# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""An independent OAuth 2.0 / OpenID Connect client (Authlib, from PyPI) against the local server.

Usage: python3 authlib_client.py ISSUER CLIENT_ID

Discovers the server, builds the authorization URL with PKCE S256 and a nonce, follows the
auto-approve redirect itself (requests, allow_redirects=False) to get the code, exchanges it,
verifies the ID token against the server's JWKS with Authlib's own JOSE code, refreshes once, and
prints one JSON object: the tokens, the ID token's claims and what was checked.
"""
import json
import os
import sys
from urllib.parse import parse_qs, urlsplit

# The local server speaks plain HTTP on 127.0.0.1; Authlib refuses that unless told.
os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"

import requests  # noqa: E402
from authlib.common.security import generate_token  # noqa: E402
from authlib.integrations.requests_client import OAuth2Session  # noqa: E402
from authlib.jose import JsonWebKey, jwt  # noqa: E402


def main() -> None:
    issuer, client_id = sys.argv[1], sys.argv[2]
    metadata = requests.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    if metadata["issuer"] != issuer:
        sys.exit(f"metadata names issuer {metadata['issuer']!r}, not {issuer!r}")

    # Nothing listens here: the script reads the redirect's Location itself.
    redirect_uri = "http://127.0.0.1:9/callback"
    session = OAuth2Session(client_id, redirect_uri=redirect_uri, scope="openid email",
                            code_challenge_method="S256", token_endpoint_auth_method="none")
    verifier = generate_token(64)
    nonce = generate_token(24)
    url, state = session.create_authorization_url(metadata["authorization_endpoint"],
                                                  code_verifier=verifier, nonce=nonce)
    answer = requests.get(url, allow_redirects=False, timeout=10)
    if answer.status_code not in (302, 303):
        sys.exit(f"/authorize answered HTTP {answer.status_code}, not a redirect: {answer.text[:200]}")
    location = answer.headers["Location"]
    callback = parse_qs(urlsplit(location).query)
    if not location.startswith(redirect_uri + "?"):
        sys.exit("the redirect does not go to the redirect URI")
    if callback.get("iss") != [issuer]:
        sys.exit(f"the redirect's iss is {callback.get('iss')}, not {issuer!r} (RFC 9207)")

    token = session.fetch_token(metadata["token_endpoint"], authorization_response=location,
                                state=state, code_verifier=verifier)

    keys = JsonWebKey.import_key_set(requests.get(metadata["jwks_uri"], timeout=10).json())
    claims = jwt.decode(token["id_token"], keys, claims_options={
        "iss": {"essential": True, "value": issuer},
        "aud": {"essential": True, "value": client_id},
        "nonce": {"essential": True, "value": nonce},
        "sub": {"essential": True},
    })
    claims.validate(leeway=60)

    refreshed = session.refresh_token(metadata["token_endpoint"], refresh_token=token["refresh_token"])

    print(json.dumps({
        "access_token": token["access_token"],
        "refresh_token": token["refresh_token"],
        "id_token": token["id_token"],
        "refreshed_access_token": refreshed["access_token"],
        "claims": dict(claims),
        "id_token_alg": claims.header["alg"],
        "state_matched": callback.get("state") == [state],
    }))


if __name__ == "__main__":
    main()
