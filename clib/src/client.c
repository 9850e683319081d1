/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* The client: a private connection to the session bus, served by a thread and GMainContext of the client's own, and
 * the operations that run on it (the portal Request/Response pattern for sign-in and sign-out, a plain call for a
 * token). Every D-Bus step happens on the client's thread; the app's threads only post work there. */
#include "internal.h"

#include <string.h>

/* The longest a sign-in may take when the app gives no timeout: the service's largest (3600 s) and a margin. */
#define DEFAULT_SIGN_IN_SECONDS 3600
#define MARGIN_SECONDS 60
/* GetAccessToken may refresh at the provider; SignOut may revoke there. */
#define TOKEN_CALL_MS 60000
#define SIGN_OUT_SECONDS 120
#define CALL_MS 30000
#define CLOSE_CALL_MS 5000

typedef enum { OP_SIGN_IN, OP_SIGN_OUT, OP_TOKEN } op_kind;

struct eua_client {
    GMainContext *context;
    GMainLoop *loop;
    GThread *thread;
    GDBusConnection *bus;
    char *sender;                /* the connection's unique name as request paths spell it */
    char *address;
    guint connect_timeout_ms;
    /* Connection set-up, handed from the client's thread to eua_client_new. */
    gboolean ready;
    eua_error *connect_error;
    GCancellable *connecting;
    /* Under `lock` (the library's one lock: operations outlive their client, so theirs cannot be the client's). */
    eua_dispatch_fn dispatch;
    void *dispatch_data;
    eua_log_fn log;
    void *log_data;
    GList *ops;                  /* unfinished operations, each holding a reference */
    GList *held;                 /* while closing: finished operations whose `done` runs in eua_client_free */
    gboolean closing;
    guint next_token;
};

struct eua_op {
    gint refs;
    op_kind kind;
    eua_done_fn done;
    void *user_data;
    /* Under `lock`. */
    eua_client *client;          /* set while unfinished */
    gboolean finished, freed, cancel_requested, delivered;
    GThread *running_done;       /* the thread running `done`, if any */
    /* On the client's thread only. */
    char *method;
    GVariant *parameters;        /* ready to send; NULL when `pending_error` */
    eua_error *pending_error;    /* the arguments were refused: the op ends with this on the client's thread */
    char *token;                 /* handle_token */
    char *handle;                /* the request object, once the call answered */
    char *service_owner;         /* the unique name that answered the call: only its Response counts */
    GVariant *early_response;    /* a Response that came before the call's reply, kept until the owner is known */
    char *early_sender;
    guint subscription;
    GSource *deadline;
    guint deadline_seconds;
    /* The outcome, from finish to delivery. */
    GString *result;
    eua_error *error;
};

static GMutex lock;
static GCond done_returned;

/* ---------------------------------------------------------------- diagnostics */

static void say(eua_client *client, int level, const char *format, ...) G_GNUC_PRINTF(3, 4);
static void say(eua_client *client, int level, const char *format, ...) {
    g_mutex_lock(&lock);
    eua_log_fn log = client->log;
    void *data = client->log_data;
    g_mutex_unlock(&lock);
    if (!log) return;
    va_list arguments;
    va_start(arguments, format);
    char *message = g_strdup_vprintf(format, arguments);
    va_end(arguments);
    log(data, level, message);
    g_free(message);
}

int eua_api_version(void) { return EUA_API_VERSION; }

const char *eua_version(void) { return EUA_VERSION_STRING; }

void eua_string_free(char *string) {
    if (!string) return;
    explicit_bzero(string, strlen(string));
    g_free(string);
}

/* ---------------------------------------------------------------- operations: references, finishing, delivery */

static eua_op *op_ref(eua_op *op) {
    g_atomic_int_inc(&op->refs);
    return op;
}

static void op_unref(void *data) {
    eua_op *op = data;
    if (!g_atomic_int_dec_and_test(&op->refs)) return;
    g_free(op->method);
    if (op->parameters) g_variant_unref(op->parameters);
    eua_error_free(op->pending_error);
    g_free(op->token);
    g_free(op->handle);
    g_free(op->service_owner);
    if (op->early_response) g_variant_unref(op->early_response);
    g_free(op->early_sender);
    eua_gstring_wipe_free(op->result);
    eua_error_free(op->error);
    g_free(op);
}

/* Runs `done` unless the op was freed; consumes one reference. The dispatcher's `run`. */
static void deliver(void *data) {
    eua_op *op = data;
    g_mutex_lock(&lock);
    gboolean run = !op->freed && !op->delivered;
    op->delivered = TRUE;
    if (run) op->running_done = g_thread_self();
    g_mutex_unlock(&lock);
    if (run) {
        op->done(op->user_data, op->result ? op->result->str : NULL, op->error);
        g_mutex_lock(&lock);
        op->running_done = NULL;
        g_cond_broadcast(&done_returned);
        g_mutex_unlock(&lock);
    }
    op_unref(op);
}

/* Ends `op` once with `result` (a JSON text) or `error` (taken). Without effect when it ended already. On the
 * client's thread, or in eua_client_free after that thread stopped. */
static void finish(eua_op *op, GString *result, eua_error *error) {
    g_mutex_lock(&lock);
    eua_client *client = op->client;
    if (op->finished || !client) {
        g_mutex_unlock(&lock);
        eua_gstring_wipe_free(result);
        eua_error_free(error);
        return;
    }
    op->finished = TRUE;
    op->client = NULL;
    client->ops = g_list_remove(client->ops, op);
    gboolean hold = client->closing, freed = op->freed;
    eua_dispatch_fn dispatch = client->dispatch;
    void *dispatch_data = client->dispatch_data;
    g_mutex_unlock(&lock);

    if (op->subscription) {
        g_dbus_connection_signal_unsubscribe(client->bus, op->subscription);
        op->subscription = 0;
    }
    if (op->deadline) {
        g_source_destroy(op->deadline);
        g_source_unref(op->deadline);
        op->deadline = NULL;
    }
    say(client, EUA_CLIENT_LOG_DEBUG, "%s ended: %s", op->method, error ? error->name : "success");
    if (freed) {
        /* Nobody waits for it: no delivery, and the list's reference goes. */
        eua_gstring_wipe_free(result);
        eua_error_free(error);
        op_unref(op);
        return;
    }
    op->result = result;
    op->error = error;
    if (hold) {
        g_mutex_lock(&lock);
        client->held = g_list_append(client->held, op);
        g_mutex_unlock(&lock);
    } else if (dispatch) {
        dispatch(dispatch_data, deliver, op);
    } else {
        deliver(op);
    }
}

/* Attaches `fn(op)` to the client's context as an idle source holding a reference of `op`. */
static void post(eua_client *client, GSourceFunc fn, eua_op *op) {
    GSource *source = g_idle_source_new();
    g_source_set_callback(source, fn, op_ref(op), op_unref);
    g_source_attach(source, client->context);
    g_source_unref(source);
}

static void on_close_reply(GObject *source, GAsyncResult *result, gpointer data) {
    (void)data;
    GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, NULL);
    if (reply) g_variant_unref(reply);
}

/* Asks the service to close the request `handle` (it cancels the work; no Response follows). */
static void close_request(eua_client *client, const char *handle) {
    say(client, EUA_CLIENT_LOG_DEBUG, "closing the request %s", handle);
    g_dbus_connection_call(client->bus, EUA_SERVICE_NAME, handle, EUA_REQUEST_INTERFACE, "Close", NULL, NULL,
                           G_DBUS_CALL_FLAGS_NO_AUTO_START, CLOSE_CALL_MS, NULL, on_close_reply, NULL);
}

/* ---------------------------------------------------------------- operations on the client's thread */

static gboolean cancel_in_thread(gpointer data) {
    eua_op *op = data;
    g_mutex_lock(&lock);
    eua_client *client = op->client;
    g_mutex_unlock(&lock);
    if (!client) return G_SOURCE_REMOVE;
    if (op->handle) close_request(client, op->handle);
    /* A call still in flight: its reply closes the request it made (on_call_reply). */
    finish(op, NULL, eua_error_new(EUA_CLIENT_ERROR_PROGRAM_CANCELED, "%s: cancelled by the app", op->method));
    return G_SOURCE_REMOVE;
}

static gboolean on_deadline(gpointer data) {
    eua_op *op = data;
    g_mutex_lock(&lock);
    eua_client *client = op->client;
    g_mutex_unlock(&lock);
    if (!client) return G_SOURCE_REMOVE;
    if (op->handle) close_request(client, op->handle);
    finish(op, NULL, eua_error_new(EUA_CLIENT_ERROR_TIMED_OUT,
                                   "%s: the service sent no answer within %u s; the request was closed, try again",
                                   op->method, op->deadline_seconds));
    return G_SOURCE_REMOVE;
}

/* A Response of the request: ends the operation with its results. */
static void take_response(eua_op *op, GVariant *parameters) {
    guint32 code;
    GVariant *results;
    g_variant_get(parameters, "(u@a{sv})", &code, &results);
    if (code == 0) {
        GString *json = g_string_new(NULL);
        eua_variant_write_json(json, results);
        finish(op, json, NULL);
    } else if (code == 1) {
        finish(op, NULL, eua_error_new(EUA_CLIENT_ERROR_USER_CANCELED,
                                       "%s: the person closed the browser or declined", op->method));
    } else {
        finish(op, NULL, eua_error_from_response(results, op->method));
    }
    g_variant_unref(results);
}

/* Only the connection that answered the call may end it: a signal sent straight to this connection reaches it
 * whatever its match rules say, so the sender is checked here, by unique name. */
static void on_response(GDBusConnection *bus, const char *sender, const char *path, const char *interface,
                        const char *signal, GVariant *parameters, gpointer data) {
    (void)bus, (void)interface, (void)signal;
    eua_op *op = data;
    if (!g_variant_is_of_type(parameters, G_VARIANT_TYPE("(ua{sv})")) || !sender) return;
    if (op->handle && strcmp(path, op->handle) != 0) return;
    if (!op->service_owner) {
        if (!op->early_response) {
            op->early_response = g_variant_ref(parameters);
            op->early_sender = g_strdup(sender);
        }
        return;
    }
    if (strcmp(sender, op->service_owner) != 0) {
        g_mutex_lock(&lock);
        eua_client *client = op->client;
        g_mutex_unlock(&lock);
        if (client) say(client, EUA_CLIENT_LOG_WARNING, "%s: ignored a Response from %s, which is not the service (%s)",
                        op->method, sender, op->service_owner);
        return;
    }
    take_response(op, parameters);
}

static void subscribe(eua_client *client, eua_op *op, const char *path) {
    if (op->subscription) g_dbus_connection_signal_unsubscribe(client->bus, op->subscription);
    op->subscription = g_dbus_connection_signal_subscribe(client->bus, EUA_SERVICE_NAME, EUA_REQUEST_INTERFACE,
                                                          "Response", path, NULL, G_DBUS_SIGNAL_FLAGS_NONE,
                                                          on_response, op_ref(op), op_unref);
}

/* The reply of SignIn or SignOut: the request's handle, and who answered. */
static void on_request_reply(GObject *source, GAsyncResult *result, gpointer data) {
    eua_op *op = data;
    GDBusConnection *bus = G_DBUS_CONNECTION(source);
    GError *gerror = NULL;
    GDBusMessage *reply = g_dbus_connection_send_message_with_reply_finish(bus, result, &gerror);
    if (reply && g_dbus_message_to_gerror(reply, &gerror)) g_clear_object(&reply);
    GVariant *body = reply ? g_dbus_message_get_body(reply) : NULL;
    if (reply && (!body || !g_variant_is_of_type(body, G_VARIANT_TYPE("(o)")) || !g_dbus_message_get_sender(reply))) {
        g_set_error(&gerror, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_SIGNATURE,
                    "the service answered with %s instead of a request handle (o)",
                    body ? g_variant_get_type_string(body) : "nothing");
        g_clear_object(&reply);
        body = NULL;
    }
    g_mutex_lock(&lock);
    eua_client *client = op->client;
    g_mutex_unlock(&lock);
    if (!client) {
        /* Cancelled (or timed out) while the call was in flight: close the request it made. */
        if (body) {
            const char *handle;
            g_variant_get(body, "(&o)", &handle);
            g_dbus_connection_call(bus, EUA_SERVICE_NAME, handle, EUA_REQUEST_INTERFACE, "Close", NULL, NULL,
                                   G_DBUS_CALL_FLAGS_NO_AUTO_START, CLOSE_CALL_MS, NULL, on_close_reply, NULL);
        }
    } else if (!body) {
        finish(op, NULL, eua_error_from_gerror(gerror, op->method));
    } else {
        g_variant_get(body, "(o)", &op->handle);
        op->service_owner = g_strdup(g_dbus_message_get_sender(reply));
        /* An older service may choose another path: listen there (xdg-desktop-portal's clients do the same). */
        if (!g_str_has_suffix(op->handle, op->token)) subscribe(client, op, op->handle);
        say(client, EUA_CLIENT_LOG_DEBUG, "%s: waiting for the Response of %s", op->method, op->handle);
        if (op->early_response && strcmp(op->early_sender, op->service_owner) == 0) {
            GVariant *early = op->early_response;
            op->early_response = NULL;
            take_response(op, early);
            g_variant_unref(early);
        }
    }
    if (reply) g_object_unref(reply);
    if (gerror) g_error_free(gerror);
    op_unref(op);
}

/* The reply of GetAccessToken: the token as JSON. */
static void on_token_reply(GObject *source, GAsyncResult *result, gpointer data) {
    eua_op *op = data;
    GError *gerror = NULL;
    GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &gerror);
    g_mutex_lock(&lock);
    eua_client *client = op->client;
    g_mutex_unlock(&lock);
    if (!client) {
        /* Cancelled or timed out: nothing to close. */
    } else if (!reply) {
        finish(op, NULL, eua_error_from_gerror(gerror, op->method));
    } else {
        finish(op, eua_token_json(reply), NULL);
    }
    if (reply) g_variant_unref(reply);
    if (gerror) g_error_free(gerror);
    op_unref(op);
}

static gboolean start_in_thread(gpointer data) {
    eua_op *op = data;
    g_mutex_lock(&lock);
    eua_client *client = op->client;
    g_mutex_unlock(&lock);
    if (!client) return G_SOURCE_REMOVE;
    if (op->pending_error) {
        eua_error *error = op->pending_error;
        op->pending_error = NULL;
        finish(op, NULL, error);
        return G_SOURCE_REMOVE;
    }
    op->deadline = g_timeout_source_new_seconds(op->deadline_seconds);
    g_source_set_callback(op->deadline, on_deadline, op_ref(op), op_unref);
    g_source_attach(op->deadline, client->context);
    say(client, EUA_CLIENT_LOG_DEBUG, "%s: calling the service", op->method);
    GVariant *parameters = op->parameters;
    op->parameters = NULL;
    if (op->kind == OP_TOKEN) {
        g_dbus_connection_call(client->bus, EUA_SERVICE_NAME, EUA_SERVICE_PATH, EUA_SERVICE_INTERFACE, op->method,
                               parameters, G_VARIANT_TYPE("(sxa{sv})"), G_DBUS_CALL_FLAGS_NONE, TOKEN_CALL_MS, NULL,
                               on_token_reply, op_ref(op));
    } else {
        /* Subscribed before the call, on the path the service will use (xdg-desktop-portal's rule). */
        char *path = g_strdup_printf(EUA_SERVICE_PATH "/request/%s/%s", client->sender, op->token);
        subscribe(client, op, path);
        g_free(path);
        GDBusMessage *call = g_dbus_message_new_method_call(EUA_SERVICE_NAME, EUA_SERVICE_PATH, EUA_SERVICE_INTERFACE,
                                                            op->method);
        g_dbus_message_set_body(call, parameters);
        g_dbus_connection_send_message_with_reply(client->bus, call, G_DBUS_SEND_MESSAGE_FLAGS_NONE, CALL_MS, NULL,
                                                  NULL, on_request_reply, op_ref(op));
        g_object_unref(call);
    }
    g_variant_unref(parameters);
    return G_SOURCE_REMOVE;
}

/* A new operation of `client`, registered and posted to its thread. */
static eua_op *start(eua_client *client, op_kind kind, const char *method, GVariant *parameters, eua_error *error,
                     guint deadline_seconds, const char *token, eua_done_fn done, void *user_data) {
    eua_op *op = g_new0(eua_op, 1);
    op->refs = 1;
    op->kind = kind;
    op->done = done;
    op->user_data = user_data;
    op->method = g_strdup(method);
    op->parameters = parameters ? g_variant_ref_sink(parameters) : NULL;
    op->pending_error = error;
    op->deadline_seconds = deadline_seconds;
    op->token = g_strdup(token);
    g_mutex_lock(&lock);
    op->client = client;
    client->ops = g_list_prepend(client->ops, op_ref(op));
    g_mutex_unlock(&lock);
    post(client, start_in_thread, op);
    return op;
}

/* The next handle_token of `client` (1-64 of [A-Za-z0-9_], unique on its connection). */
static char *next_token(eua_client *client) {
    g_mutex_lock(&lock);
    guint number = ++client->next_token;
    g_mutex_unlock(&lock);
    return g_strdup_printf("eua_%u", number);
}

/* ---------------------------------------------------------------- public operations */

eua_op *eua_sign_in(eua_client *client, const char *request_json, eua_done_fn done, void *user_data) {
    if (!client || !done) return NULL;
    static const eua_json_key keys[] = {
        {"issuer", "s", 0, 0, TRUE, FALSE},        {"client_id", "s", 0, 0, TRUE, FALSE},
        {"scopes", "as", 0, 0, TRUE, FALSE},       {"resource", "as", 0, 0, TRUE, FALSE},
        {"login_hint", "s", 0, 0, FALSE, FALSE},   {"prompt", "s", 0, 0, FALSE, FALSE},
        {"max_age", "u", 0, 0, FALSE, FALSE},      {"account", "s", 0, 0, FALSE, FALSE},
        {"timeout", "u", 1, 3600, FALSE, FALSE},   {"agent", "s", 0, 0, FALSE, FALSE},
        {"parent_window", "s", 0, 0, FALSE, TRUE}, {NULL, NULL, 0, 0, FALSE, FALSE},
    };
    static const char *const required[] = {"issuer", "client_id", NULL};
    char *token = next_token(client);
    GVariantBuilder client_dict, options;
    g_variant_builder_init(&client_dict, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
    char *parent_window = NULL;
    eua_error *error = NULL;
    GVariant *parameters = NULL;
    guint seconds = DEFAULT_SIGN_IN_SECONDS + MARGIN_SECONDS;
    if (request_json == NULL) {
        error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT,
                              "SignIn: request_json is NULL; pass an object with at least \"issuer\" and \"client_id\"");
    } else if (eua_json_to_dicts(request_json, keys, required, &client_dict, &options, &parent_window, &error)) {
        g_variant_builder_add(&options, "{sv}", "handle_token", g_variant_new_string(token));
        GVariant *dict = g_variant_ref_sink(g_variant_builder_end(&options));
        guint32 timeout;
        if (g_variant_lookup(dict, "timeout", "u", &timeout)) seconds = timeout + MARGIN_SECONDS;
        parameters = g_variant_new("(s@a{sv}@a{sv})", parent_window ? parent_window : "",
                                   g_variant_builder_end(&client_dict), dict);
        g_variant_unref(dict);
    } else {
        char *message = g_strdup_printf("SignIn: %s", error->message);
        g_free((char *)error->message);
        error->message = message;
    }
    if (!parameters) {
        g_variant_builder_clear(&client_dict);
        g_variant_builder_clear(&options);
    }
    eua_op *op = start(client, OP_SIGN_IN, "SignIn", parameters, error, seconds, token, done, user_data);
    g_free(parent_window);
    g_free(token);
    return op;
}

/* The arguments of SignOut and GetAccessToken: an account and an options object. */
static GVariant *account_call(const char *method, const char *account, const char *options_json,
                              const eua_json_key *keys, const char *token, gboolean with_parent, eua_error **error) {
    if (!account) {
        *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT,
                               "%s: account is NULL; pass an account id from a sign-in or eua_list_accounts", method);
        return NULL;
    }
    if (!g_utf8_validate(account, -1, NULL)) {
        *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "%s: account is not UTF-8", method);
        return NULL;
    }
    GVariantBuilder options;
    g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
    char *parent_window = NULL;
    if (!eua_json_to_dicts(options_json, keys, NULL, NULL, &options, &parent_window, error)) {
        g_variant_builder_clear(&options);
        char *message = g_strdup_printf("%s: options_json: %s", method, (*error)->message);
        g_free((char *)(*error)->message);
        (*error)->message = message;
        return NULL;
    }
    if (token) g_variant_builder_add(&options, "{sv}", "handle_token", g_variant_new_string(token));
    GVariant *parameters = with_parent
        ? g_variant_new("(ssa{sv})", parent_window ? parent_window : "", account, &options)
        : g_variant_new("(sa{sv})", account, &options);
    g_free(parent_window);
    return parameters;
}

static const eua_json_key token_keys[] = {
    {"min_valid", "u", 0, 86400, FALSE, FALSE}, {"id_token", "b", 0, 0, FALSE, FALSE}, {NULL, NULL, 0, 0, FALSE, FALSE}};

eua_op *eua_sign_out(eua_client *client, const char *account, const char *options_json, eua_done_fn done,
                     void *user_data) {
    if (!client || !done) return NULL;
    static const eua_json_key keys[] = {{"revoke", "b", 0, 0, FALSE, FALSE},
                                        {"end_session", "b", 0, 0, FALSE, FALSE},
                                        {"parent_window", "s", 0, 0, FALSE, TRUE},
                                        {NULL, NULL, 0, 0, FALSE, FALSE}};
    char *token = next_token(client);
    eua_error *error = NULL;
    GVariant *parameters = account_call("SignOut", account, options_json, keys, token, TRUE, &error);
    eua_op *op = start(client, OP_SIGN_OUT, "SignOut", parameters, error, SIGN_OUT_SECONDS, token, done, user_data);
    g_free(token);
    return op;
}

eua_op *eua_get_access_token(eua_client *client, const char *account, const char *options_json, eua_done_fn done,
                             void *user_data) {
    if (!client || !done) return NULL;
    eua_error *error = NULL;
    GVariant *parameters = account_call("GetAccessToken", account, options_json, token_keys, NULL, FALSE, &error);
    return start(client, OP_TOKEN, "GetAccessToken", parameters, error, TOKEN_CALL_MS / 1000 + MARGIN_SECONDS, NULL,
                 done, user_data);
}

void eua_op_cancel(eua_op *op) {
    if (!op) return;
    g_mutex_lock(&lock);
    if (!op->finished && op->client && !op->cancel_requested) {
        op->cancel_requested = TRUE;
        post(op->client, cancel_in_thread, op);
    }
    g_mutex_unlock(&lock);
}

void eua_op_free(eua_op *op) {
    if (!op) return;
    g_mutex_lock(&lock);
    op->freed = TRUE;
    while (op->running_done && op->running_done != g_thread_self()) g_cond_wait(&done_returned, &lock);
    if (!op->finished && op->client && !op->cancel_requested) {
        op->cancel_requested = TRUE;
        post(op->client, cancel_in_thread, op);
    }
    g_mutex_unlock(&lock);
    op_unref(op);
}

/* ---------------------------------------------------------------- synchronous calls, on the caller's thread */

static GVariant *call_sync(eua_client *client, const char *method, GVariant *parameters, const GVariantType *type,
                           int timeout_ms, eua_error **error) {
    GError *gerror = NULL;
    GVariant *reply = g_dbus_connection_call_sync(client->bus, EUA_SERVICE_NAME, EUA_SERVICE_PATH,
                                                  EUA_SERVICE_INTERFACE, method, parameters, type,
                                                  G_DBUS_CALL_FLAGS_NONE, timeout_ms, NULL, &gerror);
    if (!reply) {
        eua_error_give(eua_error_from_gerror(gerror, method), error);
        g_error_free(gerror);
    }
    return reply;
}

char *eua_get_access_token_sync(eua_client *client, const char *account, const char *options_json, int timeout_ms,
                                eua_error **error) {
    if (!client) {
        eua_error_give(eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "GetAccessToken: client is NULL"), error);
        return NULL;
    }
    if (timeout_ms < 1 || timeout_ms > 3600000) {
        eua_error_give(eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT,
                                     "GetAccessToken: timeout_ms is %d; give 1 to 3600000", timeout_ms), error);
        return NULL;
    }
    eua_error *failure = NULL;
    GVariant *parameters = account_call("GetAccessToken", account, options_json, token_keys, NULL, FALSE, &failure);
    if (!parameters) {
        eua_error_give(failure, error);
        return NULL;
    }
    GVariant *reply = call_sync(client, "GetAccessToken", parameters, G_VARIANT_TYPE("(sxa{sv})"), timeout_ms, error);
    if (!reply) return NULL;
    GString *json = eua_token_json(reply);
    char *text = g_strdup(json->str);
    eua_gstring_wipe_free(json);
    g_variant_unref(reply);
    return text;
}

char *eua_list_accounts(eua_client *client, eua_error **error) {
    if (!client) {
        eua_error_give(eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "ListAccounts: client is NULL"), error);
        return NULL;
    }
    GVariant *reply = call_sync(client, "ListAccounts", g_variant_new("(@a{sv})", g_variant_new("a{sv}", NULL)),
                                G_VARIANT_TYPE("(aa{sv})"), CALL_MS, error);
    if (!reply) return NULL;
    GVariant *accounts = g_variant_get_child_value(reply, 0);
    GString *json = g_string_new(NULL);
    eua_variant_write_json(json, accounts);
    g_variant_unref(accounts);
    g_variant_unref(reply);
    return g_string_free(json, FALSE);
}

/* ---------------------------------------------------------------- the client and its thread */

static gboolean stop_connecting(gpointer data) {
    eua_client *client = data;
    g_cancellable_cancel(client->connecting);
    return G_SOURCE_REMOVE;
}

static void on_connected(GObject *source, GAsyncResult *result, gpointer data) {
    (void)source;
    eua_client *client = data;
    GError *gerror = NULL;
    GDBusConnection *bus = g_dbus_connection_new_for_address_finish(result, &gerror);
    g_mutex_lock(&lock);
    if (bus) {
        client->bus = bus;
        client->sender = g_strdup(g_dbus_connection_get_unique_name(bus) + 1);
        for (char *p = client->sender; *p; p++) if (*p == '.') *p = '_';
    } else if (g_error_matches(gerror, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
        client->connect_error = eua_error_new(EUA_CLIENT_ERROR_TIMED_OUT,
                                              "connecting to the bus %s took longer than %u ms; is its dbus-daemon "
                                              "running?", client->address, client->connect_timeout_ms);
    } else {
        client->connect_error = eua_error_new(EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE,
                                              "could not connect to the bus %s (%s); run the app in a desktop "
                                              "session, or give \"bus_address\"", client->address, gerror->message);
    }
    client->ready = TRUE;
    g_cond_broadcast(&done_returned);
    g_mutex_unlock(&lock);
    if (gerror) g_error_free(gerror);
}

static gpointer thread_main(gpointer data) {
    eua_client *client = data;
    g_main_context_push_thread_default(client->context);
    GSource *timeout = g_timeout_source_new(client->connect_timeout_ms);
    g_source_set_callback(timeout, stop_connecting, client, NULL);
    g_source_attach(timeout, client->context);
    g_dbus_connection_new_for_address(client->address,
                                      G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT
                                          | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                      NULL, client->connecting, on_connected, client);
    g_main_loop_run(client->loop);
    g_source_destroy(timeout);
    g_source_unref(timeout);
    g_main_context_pop_thread_default(client->context);
    return NULL;
}

static gboolean quit_in_thread(gpointer data) {
    g_main_loop_quit(data);
    return G_SOURCE_REMOVE;
}

static gboolean set_flag(gpointer data) {
    *(gboolean *)data = TRUE;
    return G_SOURCE_REMOVE;
}

static void on_bus_closed(GObject *source, GAsyncResult *result, gpointer data) {
    g_dbus_connection_close_finish(G_DBUS_CONNECTION(source), result, NULL);
    *(gboolean *)data = TRUE;
}

/* After the client's thread stopped: runs what it left queued in its context (replies of calls in flight, the
 * notifications of removed subscriptions, posted starts and cancels: each only drops its reference), closes the
 * connection (sending what is queued first, the requests' Close calls included) within 2 s, and frees the client. */
static void client_destroy(eua_client *client) {
    g_main_context_push_thread_default(client->context);
    if (client->bus) {
        gboolean closed = FALSE, late = FALSE;
        g_dbus_connection_close(client->bus, NULL, on_bus_closed, &closed);
        GSource *deadline = g_timeout_source_new(2000);
        g_source_set_callback(deadline, set_flag, &late, NULL);
        g_source_attach(deadline, client->context);
        while (!closed && !late) g_main_context_iteration(client->context, TRUE);
        g_source_destroy(deadline);
        g_source_unref(deadline);
    }
    while (g_main_context_iteration(client->context, FALSE)) {}
    if (client->bus) g_object_unref(client->bus);
    while (g_main_context_iteration(client->context, FALSE)) {}
    g_main_context_pop_thread_default(client->context);
    g_main_loop_unref(client->loop);
    g_main_context_unref(client->context);
    g_object_unref(client->connecting);
    eua_error_free(client->connect_error);
    g_free(client->sender);
    g_free(client->address);
    g_free(client);
}

/* Posts `fn(client)` to the client's thread, which must end its loop, and waits for the thread to end. */
static void stop_thread(eua_client *client, GSourceFunc fn, gpointer data) {
    GSource *source = g_idle_source_new();
    g_source_set_callback(source, fn, data, NULL);
    g_source_attach(source, client->context);
    g_source_unref(source);
    g_thread_join(client->thread);
    client->thread = NULL;
}

eua_client *eua_client_new(const char *options_json, eua_error **error) {
    static const char *const known[] = {"bus_address", "connect_timeout_ms", NULL};
    char *message = NULL;
    eua_json *options = eua_json_parse(options_json ? options_json : "{}", &message);
    if (!options) {
        eua_error_give(eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "eua_client_new: options_json: %s", message),
                       error);
        g_free(message);
        return NULL;
    }
    eua_error *failure = NULL;
    const eua_json *address = eua_json_member(options, "bus_address");
    const eua_json *timeout = eua_json_member(options, "connect_timeout_ms");
    if (options->kind != EUA_JSON_OBJECT) {
        failure = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "eua_client_new: options_json must be an object");
    } else if (address && address->kind != EUA_JSON_STRING) {
        failure = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "eua_client_new: \"bus_address\" must be a string");
    } else if (timeout && (timeout->kind != EUA_JSON_NUMBER || !timeout->is_integer || timeout->integer < 1
                           || timeout->integer > 60000)) {
        failure = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT,
                                "eua_client_new: \"connect_timeout_ms\" must be a whole number from 1 to 60000");
    } else {
        for (size_t i = 0; i < options->count && !failure; i++) {
            if (!g_strv_contains(known, options->keys[i])) {
                failure = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT,
                                        "eua_client_new: unknown key \"%.64s\"; the keys are bus_address, "
                                        "connect_timeout_ms", options->keys[i]);
            }
        }
    }
    char *bus_address = NULL;
    if (!failure && address) {
        bus_address = g_strdup(address->string);
    } else if (!failure) {
        GError *gerror = NULL;
        bus_address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, NULL, &gerror);
        if (!bus_address) {
            failure = eua_error_new(EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE,
                                    "eua_client_new: no session bus (%s); run the app in a desktop session, or set "
                                    "DBUS_SESSION_BUS_ADDRESS", gerror->message);
            g_error_free(gerror);
        }
    }
    guint connect_ms = timeout ? (guint)timeout->integer : 10000;
    eua_json_free(options);
    if (failure) {
        eua_error_give(failure, error);
        return NULL;
    }

    eua_client *client = g_new0(eua_client, 1);
    client->address = bus_address;
    client->connect_timeout_ms = connect_ms;
    client->context = g_main_context_new();
    client->loop = g_main_loop_new(client->context, FALSE);
    client->connecting = g_cancellable_new();
    GError *gerror = NULL;
    client->thread = g_thread_try_new("eua-client", thread_main, client, &gerror);
    if (!client->thread) {
        eua_error_give(eua_error_new(EUA_CLIENT_ERROR_FAILED, "eua_client_new: no thread could be started (%s)",
                                     gerror->message), error);
        g_error_free(gerror);
        g_main_loop_unref(client->loop);
        g_main_context_unref(client->context);
        g_object_unref(client->connecting);
        g_free(client->address);
        g_free(client);
        return NULL;
    }
    /* The thread's own timeout ends the attempt; this deadline only guards against a thread that never answers. */
    gint64 deadline = g_get_monotonic_time() + (gint64)(connect_ms + 5000) * G_TIME_SPAN_MILLISECOND;
    g_mutex_lock(&lock);
    while (!client->ready) {
        if (!g_cond_wait_until(&done_returned, &lock, deadline)) break;
    }
    gboolean ready = client->ready;
    eua_error *connect_error = client->connect_error;
    client->connect_error = NULL;
    g_mutex_unlock(&lock);
    if (!ready || connect_error) {
        if (!connect_error) {
            g_cancellable_cancel(client->connecting);
            connect_error = eua_error_new(EUA_CLIENT_ERROR_TIMED_OUT, "eua_client_new: the connection did not "
                                          "finish in %u ms", connect_ms);
        }
        eua_error_give(connect_error, error);
        stop_thread(client, quit_in_thread, client->loop);
        client_destroy(client);
        return NULL;
    }
    return client;
}

void eua_client_set_dispatcher(eua_client *client, eua_dispatch_fn fn, void *dispatcher_data) {
    if (!client) return;
    g_mutex_lock(&lock);
    client->dispatch = fn;
    client->dispatch_data = fn ? dispatcher_data : NULL;
    g_mutex_unlock(&lock);
}

void eua_client_set_log(eua_client *client, eua_log_fn fn, void *log_data) {
    if (!client) return;
    g_mutex_lock(&lock);
    client->log = fn;
    client->log_data = fn ? log_data : NULL;
    g_mutex_unlock(&lock);
}

static gboolean close_all_in_thread(gpointer data) {
    eua_client *client = data;
    g_mutex_lock(&lock);
    GList *ops = g_list_copy(client->ops);
    g_list_foreach(ops, (GFunc)(void (*)(void))op_ref, NULL);
    g_mutex_unlock(&lock);
    for (GList *item = ops; item; item = item->next) {
        eua_op *op = item->data;
        if (op->handle) close_request(client, op->handle);
        finish(op, NULL, eua_error_new(EUA_CLIENT_ERROR_PROGRAM_CANCELED, "%s: the client was freed", op->method));
    }
    g_list_free_full(ops, op_unref);
    g_main_loop_quit(client->loop);
    return G_SOURCE_REMOVE;
}

void eua_client_free(eua_client *client) {
    if (!client) return;
    if (g_thread_self() == client->thread) {
        g_critical("eua_client_free was called on the client's own thread (from a done callback without a "
                   "dispatcher); it would wait for itself. Free the client from another thread.");
        return;
    }
    g_mutex_lock(&lock);
    client->closing = TRUE;
    g_mutex_unlock(&lock);
    /* Finish every operation on the client's thread (where their subscriptions live), then stop it. */
    stop_thread(client, close_all_in_thread, client);
    g_mutex_lock(&lock);
    GList *held = client->held;
    client->held = NULL;
    g_mutex_unlock(&lock);
    client_destroy(client);
    /* The operations finished while closing: their `done` runs here, before this returns. */
    for (GList *item = held; item; item = item->next) deliver(item->data);
    g_list_free(held);
}
