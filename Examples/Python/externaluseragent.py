# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Sign in through the ExternalUserAgent sign-in service from Python: ctypes over libexternaluseragent.so.1.

    client = externaluseragent.Client()
    account = client.sign_in(issuer="https://id.example.com", client_id="my-app", scopes=["openid"])
    token = client.access_token(account["account"])["access_token"]
"""
import ctypes
import json
import threading


class Error(Exception):
    """An eua_error: `name` ("userCanceled", "notFound", ...), `code`, `message`, `oauth_error`."""

    def __init__(self, pointer):
        e = pointer.contents
        self.code, self.name, self.message = e.code, e.name.decode(), e.message.decode()
        self.oauth_error = e.oauth_error.decode() if e.oauth_error else None
        super().__init__(f"{self.name}: {self.message}")


class _Error(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("code", ctypes.c_int32), ("name", ctypes.c_char_p),
                ("message", ctypes.c_char_p), ("oauth_error", ctypes.c_char_p)]


_DONE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(_Error))


class Client:
    """One connection to the service (its own thread in the library). Methods block, each with a deadline."""

    def __init__(self, options=None, library="libexternaluseragent.so.1"):
        lib = self._lib = ctypes.CDLL(library)
        for name, result, arguments in [
                ("eua_client_new", ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_void_p]),
                ("eua_client_free", None, [ctypes.c_void_p]),
                ("eua_sign_in", ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_char_p, _DONE, ctypes.c_void_p]),
                ("eua_sign_out", ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, _DONE, ctypes.c_void_p]),
                ("eua_get_access_token_sync", ctypes.c_void_p,
                 [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p]),
                ("eua_list_accounts", ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_void_p]),
                ("eua_op_cancel", None, [ctypes.c_void_p]), ("eua_op_free", None, [ctypes.c_void_p]),
                ("eua_string_free", None, [ctypes.c_void_p]), ("eua_error_free", None, [ctypes.c_void_p])]:
            function = getattr(lib, name)
            function.restype, function.argtypes = result, arguments
        self._client = self._call(lib.eua_client_new, json.dumps(options or {}).encode())

    def _take(self, pointer):
        """The JSON text at `pointer`, decoded; the library's copy is wiped and freed."""
        try:
            return json.loads(ctypes.string_at(pointer).decode())
        finally:
            self._lib.eua_string_free(pointer)

    def _call(self, function, *arguments):
        error = ctypes.POINTER(_Error)()
        result = function(*arguments, ctypes.byref(error))
        if not result:
            try:
                raise Error(error)
            finally:
                self._lib.eua_error_free(error)
        return result

    def _wait(self, start, timeout):
        """Runs an operation: `start(done)` returns the op; waits for done (cancelling it at `timeout` seconds)."""
        finished, outcome = threading.Event(), {}

        def done(_, result, error):
            outcome["value"] = json.loads(ctypes.string_at(result).decode()) if result else None
            outcome["error"] = Error(error) if error else None
            finished.set()

        callback = _DONE(done)
        op = start(callback)
        if not finished.wait(timeout):
            self._lib.eua_op_cancel(op)
            finished.wait(10)
        self._lib.eua_op_free(op)
        if "error" not in outcome:
            raise TimeoutError(f"no answer from the sign-in service within {timeout} s")
        if outcome["error"]:
            raise outcome["error"]
        return outcome["value"]

    def sign_in(self, timeout=300, **request):
        """Signs in (request: issuer, client_id, scopes, login_hint, ...); returns account, issuer, subject, ..."""
        text = json.dumps(dict(request, timeout=timeout)).encode()
        return self._wait(lambda done: self._lib.eua_sign_in(self._client, text, done, None), timeout + 60)

    def sign_out(self, account, timeout=120, **options):
        """Signs `account` out (options: revoke, end_session)."""
        text = json.dumps(options).encode()
        self._wait(lambda done: self._lib.eua_sign_out(self._client, account.encode(), text, done, None), timeout)

    def access_token(self, account, timeout_ms=60000, **options):
        """{"access_token", "expires_at", "token_type", ...} of `account` (options: min_valid, id_token)."""
        text = json.dumps(options).encode()
        return self._take(self._call(self._lib.eua_get_access_token_sync, self._client, account.encode(), text,
                                     timeout_ms))

    def accounts(self):
        """This app's accounts: a list of {"account", "issuer", "subject", "display_name", "scopes"}."""
        return self._take(self._call(self._lib.eua_list_accounts, self._client))

    def close(self):
        """Frees the client (cancelling what still runs)."""
        if self._client:
            self._lib.eua_client_free(self._client)
            self._client = None
