/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * externaluseragent.h — sign in through the ExternalUserAgent sign-in service
 * (org.externaluseragent.SignIn on the session bus) from C, C++, Python…
 *
 * The library is a thin D-Bus client of the service: the service owns the
 * browser, the redirect receiver, the host's policy and the keyring; the app
 * only asks. No GLib type, no Swift runtime and no plugin enters the app's
 * process through this header: handles are opaque, strings are UTF-8,
 * structured data is JSON, and the error struct only ever grows.
 *
 * Threads. Each client runs a thread of its own, where it talks to the bus
 * (sd-bus). Every function may be called from any thread. The `done`
 * callback of an operation runs where the client's dispatcher puts it (see
 * eua_client_set_dispatcher); without a dispatcher, on the client's thread.
 *
 * Ownership. A `char *` returned by the library is the caller's: free it with
 * eua_string_free (which wipes it first: it may hold a token). An eua_error
 * returned through an `eua_error **` is the caller's: free it with
 * eua_error_free. Strings and errors passed to a callback are borrowed for the
 * call only. Strings passed in are borrowed for the call only.
 *
 * Versions. The library's SONAME is libexternaluseragent.so.1; its symbols
 * carry the version node EUA_1.0 (later additions get EUA_1.1, …). Fields are
 * only ever appended to eua_error: read a field only when `struct_size` covers
 * it.
 */
#ifndef EXTERNALUSERAGENT_H
#define EXTERNALUSERAGENT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The major version of this API; eua_api_version() returns the library's. */
#define EUA_API_VERSION 1

/** Stable error codes (eua_error.code). Numbers are never reused; new ones may be added. */
typedef enum eua_client_error_code {
    /** Anything else: the service, the keyring or the provider failed; the message says which. ("failed") */
    EUA_CLIENT_ERROR_FAILED = 1,
    /** An argument is malformed: not JSON, a wrong type, an unknown key, out of range. ("invalidArgument") */
    EUA_CLIENT_ERROR_INVALID_ARGUMENT = 2,
    /** The host's policy refuses this app, client id or issuer, or too many requests are in flight. ("notAllowed") */
    EUA_CLIENT_ERROR_NOT_ALLOWED = 3,
    /** No account of this app has that id. ("notFound") */
    EUA_CLIENT_ERROR_NOT_FOUND = 4,
    /** The token could not be refreshed: sign in again to this account. ("interactionRequired") */
    EUA_CLIENT_ERROR_INTERACTION_REQUIRED = 5,
    /** A deadline passed. ("timedOut") */
    EUA_CLIENT_ERROR_TIMED_OUT = 6,
    /** The person closed the browser or declined. ("userCanceled") */
    EUA_CLIENT_ERROR_USER_CANCELED = 7,
    /** The app cancelled the operation (eua_op_cancel, eua_client_free). ("programCanceled") */
    EUA_CLIENT_ERROR_PROGRAM_CANCELED = 8,
    /** No session bus, or the sign-in service is not installed or did not start. ("serviceUnavailable") */
    EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE = 9,
    /** The authorization server answered with an OAuth error; see eua_error.oauth_error. ("oauthError") */
    EUA_CLIENT_ERROR_OAUTH_ERROR = 10
} eua_client_error_code;

/**
 * An error: what went wrong and what to do. Made by the library; free a
 * returned one with eua_error_free. Fields are only ever appended: read one
 * only when `struct_size` is larger than its offset.
 */
typedef struct eua_error {
    /** sizeof(eua_error) as the library was compiled. */
    uint32_t struct_size;
    /** One of eua_client_error_code (a newer library may return a number this header does not know). */
    int32_t code;
    /** The code's stable name ("userCanceled", "notAllowed", …); never NULL. */
    const char *name;
    /** What happened and what to do, in English, UTF-8; never NULL, never a token. */
    const char *message;
    /** The provider's OAuth `error` ("access_denied", "invalid_grant", …) when there was one, else NULL. */
    const char *oauth_error;
} eua_error;

/** A connection to the sign-in service (opaque). */
typedef struct eua_client eua_client;

/** One running sign-in, sign-out or token request (opaque). */
typedef struct eua_op eua_op;

/**
 * The end of an operation. Runs exactly once per operation — success, error or
 * cancel — unless the operation was freed first; never from inside the call
 * that started it. On success `result_json` is a JSON object and `error` is
 * NULL; otherwise `result_json` is NULL. Both are borrowed for the call only
 * (`result_json` is wiped after it returns: it may hold a token).
 * May call any function of this library, including eua_op_free on its own op.
 */
typedef void (*eua_done_fn)(void *user_data, const char *result_json, const eua_error *error);

/**
 * Where callbacks run. The library calls it once per completed operation, on
 * its own thread, with a function and a value: the dispatcher must arrange that
 * `run(run_data)` is called exactly once, on the thread the app wants (a Qt app
 * posts it to its main thread; a GTK app uses g_main_context_invoke). It must
 * not block.
 */
typedef void (*eua_dispatch_fn)(void *dispatcher_data, void (*run)(void *run_data), void *run_data);

/** Log levels of eua_log_fn. */
typedef enum eua_client_log_level {
    EUA_CLIENT_LOG_DEBUG = 1,
    EUA_CLIENT_LOG_INFO = 2,
    EUA_CLIENT_LOG_WARNING = 3
} eua_client_log_level;

/** Receives the library's diagnostics (UTF-8, borrowed for the call, never a token); any thread. */
typedef void (*eua_log_fn)(void *log_data, int level, const char *message);

/** The major API version of the loaded library (EUA_API_VERSION it was built with). */
int eua_api_version(void);

/** The library's version, "MAJOR.MINOR.PATCH"; static, do not free. */
const char *eua_version(void);

/**
 * Connects to the session bus (or `bus_address`) on a new thread of the
 * client's own. `options_json`: NULL or a JSON object with optional keys
 * "bus_address" (a D-Bus address; default: the session bus) and
 * "connect_timeout_ms" (1…60000, default 10000). The service itself is started
 * by D-Bus activation on the first call. Returns NULL and sets `*error` (when
 * `error` is not NULL) on failure. Free with eua_client_free.
 */
eua_client *eua_client_new(const char *options_json, eua_error **error);

/**
 * Cancels every unfinished operation of `client` (the service's requests are
 * closed), stops its thread and frees it. The `done` of an unfinished operation
 * that was not freed runs with programCanceled before this returns, on the
 * calling thread; a result already handed to the dispatcher still runs there.
 * Operations stay valid until eua_op_free. Do not call from a `done` callback
 * run by the client's own thread (without a dispatcher). NULL: nothing.
 */
void eua_client_free(eua_client *client);

/**
 * Sets where `done` callbacks run (see eua_dispatch_fn); `fn` NULL: on the
 * client's thread (the default). Applies to operations completing afterwards;
 * set it before starting any.
 */
void eua_client_set_dispatcher(eua_client *client, eua_dispatch_fn fn, void *dispatcher_data);

/** Sets the function that receives the library's diagnostics; `fn` NULL: none (the default). */
void eua_client_set_log(eua_client *client, eua_log_fn fn, void *log_data);

/**
 * Signs in: the service opens the host's browser (or the agent its policy
 * picks) at the provider, receives the redirect and keeps the tokens in the
 * keyring under this app. `request_json`, one object: "issuer" (string,
 * required), "client_id" (string, required; a public client), "scopes" (array
 * of strings), "resource" (array of strings), "login_hint", "prompt" ("none",
 * "login", "consent", "select_account", "create"), "max_age" (0…4294967295 seconds),
 * "account" (sign in again to that account), "timeout" (1…3600 seconds),
 * "agent" (a preference the host may refuse), "parent_window" (an
 * xdg-desktop-portal window identifier, "" for none). Unknown keys are refused.
 * Result: {"account", "issuer", "subject", "display_name", "scopes"} —
 * "account" is the opaque id to pass to the other calls.
 * Returns the operation (free it with eua_op_free), or NULL only when `client`
 * or `done` is NULL; every other failure, bad JSON included, comes through
 * `done`.
 */
eua_op *eua_sign_in(eua_client *client, const char *request_json, eua_done_fn done, void *user_data);

/**
 * Signs `account` out: the service revokes its tokens and forgets it.
 * `options_json`: NULL or {"revoke": bool (default true), "end_session": bool,
 * "parent_window": string}. Result: {}. Ownership as eua_sign_in.
 */
eua_op *eua_sign_out(eua_client *client, const char *account, const char *options_json, eua_done_fn done,
                     void *user_data);

/**
 * Gets an access token of `account`, refreshed by the service when needed.
 * `options_json`: NULL or {"min_valid": 0…86400 seconds (refresh first when the token
 * lives less), "id_token": bool}. Result: {"access_token": string,
 * "expires_at": seconds since 1970 (0 when unknown), "token_type": …,
 * "scopes": […], "id_token": … (when asked)}. Ownership as eua_sign_in.
 */
eua_op *eua_get_access_token(eua_client *client, const char *account, const char *options_json, eua_done_fn done,
                             void *user_data);

/**
 * eua_get_access_token, waiting on the calling thread at most `timeout_ms`
 * (1…3600000). Returns the result JSON (free with eua_string_free), or NULL and
 * sets `*error`. Never call from a thread whose main loop must keep running.
 */
char *eua_get_access_token_sync(eua_client *client, const char *account, const char *options_json, int timeout_ms,
                                eua_error **error);

/**
 * This app's accounts as a JSON array of objects {"account", "issuer",
 * "subject", "display_name", "scopes"} (never a token); waits at most 30 s.
 * Free with eua_string_free; NULL and `*error` set on failure.
 */
char *eua_list_accounts(eua_client *client, eua_error **error);

/**
 * Cancels `op`: its `done` runs with programCanceled (unless it ended already)
 * and the service's request is closed. Idempotent; any thread, also from inside
 * `done`. NULL: nothing.
 */
void eua_op_cancel(eua_op *op);

/**
 * Frees `op`, cancelling it when it still runs. When this returns, its `done`
 * is not running (it waits for a `done` running on another thread) and will
 * not run. May be called from inside its own `done`. NULL: nothing.
 */
void eua_op_free(eua_op *op);

/** Wipes `string` (it may hold a token), then frees it. NULL: nothing. */
void eua_string_free(char *string);

/** Frees an error returned by the library. NULL: nothing. */
void eua_error_free(eua_error *error);

#ifdef __cplusplus
}
#endif

#endif /* EXTERNALUSERAGENT_H */
