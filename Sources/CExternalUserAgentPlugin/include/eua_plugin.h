/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * eua_plugin.h — the C ABI between an ExternalUserAgent host and a plugin.
 *
 * A plugin is a shared library (lib<Name>.so) that exports ONE symbol, named by
 * EUA_PLUGIN_ENTRY_SYMBOL. The host calls it once, right after dlopen, and gets
 * back a table of function pointers. Only C types cross this boundary: numbers,
 * UTF-8 `const char *` (structured values are JSON objects), opaque `void *`
 * handles owned by the side that made them, and function pointers. JSON is read
 * strictly (RFC 8259): each member name at most once per object, at most 64
 * nested arrays and objects, numbers that fit a 64-bit double; `null` is absent.
 *
 * Versioning
 *   - The major version is part of the entry symbol's name and is repeated in
 *     `abi_version`. A host refuses any other major version.
 *   - Both tables start with `abi_version` and `struct_size`; new fields are only
 *     ever appended. A reader uses a field only if `struct_size` covers it.
 *
 * Threading
 *   - The host may call any plugin function from any thread, and may call
 *     functions of different instances concurrently. It never calls two
 *     functions of the same instance at the same time.
 *   - A plugin may call `eua_event_fn` and the host's `log` from any thread,
 *     including from inside `start` itself, and must not hold its own locks
 *     while doing so if that lock is also taken by `cancel`.
 *
 * Lifetime
 *   - The host never unloads a plugin (no dlclose), so static strings and the
 *     table itself may live in the plugin's static storage.
 *   - Instances: create -> start -> (cancel)? -> terminal event -> destroy.
 *
 * Ids
 *   The plugin id and every agent and receiver id is 1 to 64 characters of
 *   lowercase ASCII letters, digits, '.', '_' and '-', starting and ending with
 *   a letter or a digit ("firefox", "system-browser", "org.example.agent_2").
 *   "*" is never an id: configurations use it as a wildcard. Agent and receiver
 *   ids share one namespace (a receiver may not have an agent's id); plugin ids
 *   have their own. The host refuses a plugin whose id breaks this rule and
 *   skips an agent or receiver whose id does, naming the file and the id.
 *
 * Deadlines (the host never waits on a plugin without one)
 *   - describe, create and start must return at once: the host waits a few
 *     seconds (5 by default), then refuses the plugin or gives the instance up.
 *   - Waiting for "presented" (agents) or "listening" (receivers) has the
 *     caller's deadline; past it the host calls cancel.
 *   - After cancel the host waits a grace period (5 s by default) for the
 *     terminal event. An instance that misses it, or whose cancel never
 *     returns, is given up: never called again and never destroyed (its memory
 *     stays the plugin's), and the host goes on.
 *   - Each call is made on a thread of its own, so blocking in one only blocks
 *     that thread; calls to one instance still never overlap.
 *
 * URLs a plugin reports
 *   A "listening" redirect_uri must be an absolute URI with no userinfo
 *   ("user@") and no fragment, else the host refuses the receiver. A "redirect"
 *   or "callback" URL with userinfo never matches the redirect URI.
 *   describe() may return at most 1 MiB, an event or error at most 64 KiB.
 *
 * Events (eua_event_fn), each a JSON object with an "event" key:
 *   agents:     {"event":"presented"}                       the URL is on screen / handed off
 *               {"event":"redirect","url":"..."}            the agent itself saw the redirect
 *   receivers:  {"event":"listening","redirect_uri":"..."}  ready; the redirect URI to use
 *               {"event":"callback","url":"..."}            a valid callback arrived
 *               {"event":"refused","status":400,"reason":"..."}  a request was turned away (and the
 *                                                           receiver waits on); reason is fixed text
 *   terminal (exactly one per start, nothing after it):
 *               {"event":"finished"}                        done, nothing more will come
 *               {"event":"failed","error":{"code":"...","message":"..."}}
 *   Error codes a host understands: eua_error_code below, sent by their names
 *   (eua_error_code_name: "userCanceled", "programCanceled", "timedOut",
 *   "presentationFailed", "receiverFailed", "invalidOptions", "oauthError").
 *   Unknown codes are treated as "presentationFailed" for agents and
 *   "receiverFailed" for receivers. Events after the terminal one are
 *   ignored by the host and logged as a plugin bug.
 */
#ifndef EUA_PLUGIN_H
#define EUA_PLUGIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The major ABI version this header describes. */
#define EUA_PLUGIN_ABI_VERSION 1u

/** The name of the one symbol a plugin exports; its type is eua_plugin_entry_fn. */
#define EUA_PLUGIN_ENTRY_SYMBOL "eua_plugin_entry_v1"

/**
 * Marks the entry point for export from a plugin built with hidden visibility
 * (-fvisibility=hidden, as a plugin should be: it exports this one symbol):
 *   EUA_PLUGIN_EXPORT const eua_plugin_table *eua_plugin_entry_v1(const eua_host_table *host);
 */
#if defined(__GNUC__) || defined(__clang__)
#define EUA_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define EUA_PLUGIN_EXPORT
#endif

/**
 * Log levels for eua_host_table.log (the same order as swift-log's). `log`
 * takes the level as an int32_t (ABI version 1 as it was first published);
 * pass one of these.
 */
typedef enum eua_log_level {
    EUA_LOG_TRACE = 0,
    EUA_LOG_DEBUG = 1,
    EUA_LOG_INFO = 2,
    EUA_LOG_NOTICE = 3,
    EUA_LOG_WARNING = 4,
    EUA_LOG_ERROR = 5
} eua_log_level;

/**
 * The codes of a "failed" event. On the wire they travel by name (the "code"
 * of its "error" object): eua_error_code_name gives it. Numbers are stable and
 * only ever added.
 */
typedef enum eua_error_code {
    /** The person closed the browser or said no. */
    EUA_ERROR_USER_CANCELED = 1,
    /** The host asked the instance to cancel. */
    EUA_ERROR_PROGRAM_CANCELED = 2,
    /** Something the plugin waited for did not come in time. */
    EUA_ERROR_TIMED_OUT = 3,
    /** An agent could not show the URL. */
    EUA_ERROR_PRESENTATION_FAILED = 4,
    /** A receiver could not start or failed while waiting. */
    EUA_ERROR_RECEIVER_FAILED = 5,
    /** The options given cannot work; the message says which. */
    EUA_ERROR_INVALID_OPTIONS = 6,
    /** The authorization server answered with an OAuth error. */
    EUA_ERROR_OAUTH_ERROR = 7
} eua_error_code;

/** The wire name of `code` ("userCanceled"…); NULL for a number this header does not know. */
static inline const char *eua_error_code_name(eua_error_code code) {
    switch (code) {
    case EUA_ERROR_USER_CANCELED: return "userCanceled";
    case EUA_ERROR_PROGRAM_CANCELED: return "programCanceled";
    case EUA_ERROR_TIMED_OUT: return "timedOut";
    case EUA_ERROR_PRESENTATION_FAILED: return "presentationFailed";
    case EUA_ERROR_RECEIVER_FAILED: return "receiverFailed";
    case EUA_ERROR_INVALID_OPTIONS: return "invalidOptions";
    case EUA_ERROR_OAUTH_ERROR: return "oauthError";
    }
    return 0;
}

/**
 * What the host offers a plugin. Owned by the host, valid for the life of the
 * process; the plugin may keep the pointer.
 */
typedef struct eua_host_table {
    /** EUA_PLUGIN_ABI_VERSION of the host. */
    uint32_t abi_version;
    /** sizeof(eua_host_table) as the host was compiled; check before reading later fields. */
    uint32_t struct_size;
    /** Opaque host value; pass it back as the first argument of `log`. */
    void *context;
    /**
     * Writes `message` (UTF-8, borrowed for the call only) to the host's log at
     * `level` (an eua_log_level). Any thread. Plugins never print to stdout; use this.
     * Never pass tokens, codes, verifiers or secrets.
     */
    void (*log)(void *context, int32_t level, const char *message);
} eua_host_table;

/**
 * Receives one event from a running instance. `event_json` is owned by the
 * plugin and only borrowed for the duration of the call (the host copies it).
 * `context` is the value the host passed to `start`.
 */
typedef void (*eua_event_fn)(void *context, const char *event_json);

/**
 * What a plugin offers the host. Owned by the plugin, in static storage or
 * otherwise valid for the life of the process.
 */
typedef struct eua_plugin_table {
    /** Must be EUA_PLUGIN_ABI_VERSION. */
    uint32_t abi_version;
    /** sizeof(eua_plugin_table) as the plugin was compiled. */
    uint32_t struct_size;
    /** Opaque plugin-wide value, passed back to `describe` and `create`. May be NULL. */
    void *context;

    /**
     * Returns a JSON object, newly allocated with malloc and freed by the host
     * with `free_string`, describing the plugin and what it offers on this machine:
     *   {"id":"...", "name":"...", "version":"...",
     *    "agents":[{"id":"...","kind":"externalBrowser|inAppBrowserTab|embeddedWebView|testDouble|manual",
     *               "name":"...","version":"...","available":true,"reasons":["..."]}],
     *    "receivers":[{"id":"...","name":"...","available":true,"reasons":[]}]}
     * Called once per load, from one thread; must be fast (no subprocesses).
     * Returns NULL only on a failure that leaves nothing to offer.
     */
    char *(*describe)(void *plugin_context);

    /** Frees a string this plugin returned (describe, create's error). NULL is allowed. */
    void (*free_string)(char *string);

    /**
     * Creates an instance of the agent or receiver `component_id` (one listed by
     * `describe`) with `options_json` (a JSON object of string values, borrowed).
     * Returns an opaque handle owned by the plugin, or NULL and sets `*error_json`
     * to a malloc'd {"code":"...","message":"..."} (freed by the host with `free_string`).
     */
    void *(*create)(void *plugin_context, const char *component_id, const char *options_json,
                    char **error_json);

    /**
     * Starts the instance's one piece of asynchronous work and returns at once.
     * Agents get {"url":"...","redirect_uri":"...","timeout_seconds":N,"purpose":"..."},
     * purpose "sign-in" or "sign-out" (absent from older hosts: a sign-in; an agent that
     * speaks to the person uses the words that fit, and ignores members it does not know);
     * receivers get {"state":"...", "path":"...", "timeout_seconds":N} (fields may be absent),
     * and may get "hand_off": {"path":"/eua-hand-off/...","action":"https://...","method":"post"|"get",
     * "fields":[{"name":"...","value":"..."}],"redirect_uri_field":"..."}: a form a loopback
     * receiver serves once at that path (adding a field named redirect_uri_field with its own
     * redirect URI) and the browser submits at once; the host sends it only to the loopback receiver.
     * `request_json` is borrowed for the call. Events go to `on_event(event_context, ...)`
     * until exactly one terminal event; called at most once per instance.
     */
    void (*start)(void *instance, const char *request_json, eua_event_fn on_event,
                  void *event_context);

    /**
     * Asks the instance to stop: dismiss the browser, close sockets. Returns at once;
     * the instance then delivers its terminal event (if it has not already) promptly.
     * May be called before start, after the terminal event, or more than once.
     */
    void (*cancel)(void *instance);

    /**
     * Frees the instance. Called once, after its terminal event (or when start
     * was never called). The instance must not call `on_event` afterwards.
     */
    void (*destroy)(void *instance);
} eua_plugin_table;

/**
 * The entry point a plugin exports under EUA_PLUGIN_ENTRY_SYMBOL. Called once,
 * on the loading thread, with the host table (valid for the life of the process).
 * Returns the plugin's table, or NULL when the plugin cannot run in this host.
 */
typedef const eua_plugin_table *(*eua_plugin_entry_fn)(const eua_host_table *host);

#ifdef __cplusplus
}
#endif

#endif /* EUA_PLUGIN_H */
