# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""pytest: the ctypes module against the sign-in service. ClientLibraryTests runs it on a private bus with the
service, the keyring and a local authorization server: EUA_TEST_ISSUER names the server, EUA_LIBRARY the built
libexternaluseragent.so.1."""
import os

import pytest

import externaluseragent


@pytest.fixture
def client():
    client = externaluseragent.Client(library=os.environ["EUA_LIBRARY"])
    yield client
    client.close()


def test_sign_in_token_accounts_sign_out(client):
    issuer = os.environ["EUA_TEST_ISSUER"]
    signed_in = client.sign_in(issuer=issuer, client_id="my-app", scopes=["openid", "profile"], timeout=120)
    assert signed_in["subject"] == "alice" and signed_in["issuer"] == issuer
    account = signed_in["account"]
    token = client.access_token(account, min_valid=30)
    assert len(token["access_token"]) > 0 and token["expires_at"] > 0
    assert account in [a["account"] for a in client.accounts()]
    client.sign_out(account)
    assert account not in [a["account"] for a in client.accounts()]


def test_unknown_account_is_not_found(client):
    with pytest.raises(externaluseragent.Error) as caught:
        client.access_token("0123456789abcdef0123456789abcdef")
    assert caught.value.name == "notFound" and "ListAccounts" in caught.value.message


def test_a_bad_request_is_refused_before_the_bus(client):
    with pytest.raises(externaluseragent.Error) as caught:
        client.sign_in(issuer="https://id.example.com", client_id="my-app", colour="blue")
    assert caught.value.name == "invalidArgument" and "colour" in caught.value.message


def test_bad_client_options():
    with pytest.raises(externaluseragent.Error) as caught:
        externaluseragent.Client({"connect_timeout_ms": 0}, library=os.environ["EUA_LIBRARY"])
    assert caught.value.name == "invalidArgument"
