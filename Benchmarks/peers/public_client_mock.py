# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""oidc-provider-mock 0.3.4 (the local authorization server of Benchmarks/run) that also lets public clients
(token_endpoint_auth_method "none") use the token endpoint, as the sign-in service's clients and the iddawc peer
are: the mock's grants take only client_secret_basic and client_secret_post. Same command line as
`python -m oidc_provider_mock`. The mock does not check PKCE (it registers no CodeChallenge extension): the
verifier is sent and ignored, the same for every client measured."""
import sys

from oidc_provider_mock import _app
from oidc_provider_mock.__main__ import run

for grant in (_app.AuthorizationCodeGrant, _app.RefreshTokenGrant):
    grant.TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]

if __name__ == "__main__":
    sys.exit(run())
