/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* The client: a private sd-bus connection to the session bus, served by a thread of the client's own, and the
 * operations that run on it (the portal Request/Response pattern for sign-in and sign-out, a plain call for a token
 * or the accounts).
 *
 * Threads. sd-bus objects belong to one thread: every D-Bus step happens on the client's thread, which polls the
 * connection's socket and an eventfd. The app's threads only queue tasks for it (start, cancel, close everything)
 * and write the eventfd; they never touch the connection. The client's thread runs each queued task, lets sd-bus
 * dispatch what arrived (replies, the Response signals), ends the operations whose deadline passed, and sleeps in
 * poll() until the socket, the eventfd or the nearest deadline wakes it. The synchronous calls are operations too,
 * whose end wakes the waiting caller (or, called on the client's own thread, a blocking sd_bus_call there). */
#include "internal.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* The longest a sign-in may take when the app gives no timeout: the service's largest (3600 s) and a margin. */
#define DEFAULT_SIGN_IN_SECONDS 3600
#define MARGIN_SECONDS 60
/* GetAccessToken may refresh at the provider; SignOut may revoke there. */
#define TOKEN_CALL_MS 60000
#define SIGN_OUT_SECONDS 120
#define CALL_MS 30000
#define CLOSE_CALL_MS 5000
/* What eua_client_free waits at most for the connection to send what is queued (the requests' Close calls). */
#define FLUSH_MS 2000
#define USEC_PER_MSEC 1000ULL
#define USEC_PER_SEC 1000000ULL

typedef enum { OP_SIGN_IN, OP_SIGN_OUT, OP_TOKEN, OP_LIST } op_kind;

typedef struct task task;
typedef void (*task_fn)(eua_client *client, eua_op *op);

/* A step queued for the client's thread; holds a reference of `op` (when not NULL). */
struct task {
    task_fn fn;
    eua_op *op;
    task *next;
};

struct eua_client {
    pthread_t thread;
    int wake;                    /* eventfd: the app's threads write it when they queue a task */
    char *address;
    unsigned connect_timeout_ms;
    /* On the client's thread only (and after it ended). */
    sd_bus *bus;
    char *sender;                /* the connection's unique name as request paths spell it */
    /* Under `lock` (the library's one lock: operations outlive their client, so theirs cannot be the client's). */
    bool ready;                  /* the connection is up, or failed (connect_error) */
    eua_error *connect_error;
    eua_dispatch_fn dispatch;
    void *dispatch_data;
    eua_log_fn log;
    void *log_data;
    eua_op *ops;                 /* unfinished operations (linked by `next`), each holding a reference */
    eua_op **held;               /* while closing: finished operations whose `done` runs in eua_client_free */
    size_t held_count;
    task *tasks, *last_task;
    bool closing, stop;
    unsigned next_token;
};

struct eua_op {
    int refs;                    /* atomic */
    op_kind kind;
    eua_done_fn done;
    void *user_data;
    /* Under `lock`. */
    eua_client *client;          /* set while unfinished */
    eua_op *next;                /* in client->ops */
    bool finished, freed, cancel_requested, delivered;
    bool internal;               /* a synchronous call's: `done` runs where it ends, never through the dispatcher */
    bool has_thread;
    pthread_t running_done;      /* the thread running `done`, when has_thread */
    uint64_t deadline_usec;      /* CLOCK_MONOTONIC; 0 before the call is made */
    /* Set when made, then read on the client's thread. */
    const char *method;
    eua_json *arguments;         /* the checked request or options object; NULL when `pending_error` or none */
    const eua_json_key *keys;
    char *account;
    eua_error *pending_error;    /* the arguments were refused: the op ends with this on the client's thread */
    char *token;                 /* handle_token */
    unsigned deadline_seconds;
    uint64_t call_usec;          /* the D-Bus call's own timeout */
    /* On the client's thread only. */
    char *handle;                /* the request object, once the call answered */
    char *service_owner;         /* the unique name that answered the call: only its Response counts */
    sd_bus_message *early_response;  /* a Response that came before the call's reply, kept until the owner is known */
    sd_bus_slot *subscription;
    /* The outcome, from finish to delivery. */
    char *result;
    eua_error *error;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed;   /* a `done` returned, a client connected, a call ended; waits on CLOCK_MONOTONIC */
static pthread_once_t changed_once = PTHREAD_ONCE_INIT;

static void make_changed(void) {
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&changed, &attributes);
    pthread_condattr_destroy(&attributes);
}

static uint64_t now_usec(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * USEC_PER_SEC + (uint64_t)t.tv_nsec / 1000;
}

/* Waits on `changed` until `deadline_usec` (CLOCK_MONOTONIC); false when it passed. `lock` is held. */
static bool wait_until(uint64_t deadline_usec) {
    struct timespec t = {(time_t)(deadline_usec / USEC_PER_SEC), (long)(deadline_usec % USEC_PER_SEC) * 1000};
    return pthread_cond_timedwait(&changed, &lock, &t) != ETIMEDOUT;
}

/* ---------------------------------------------------------------- diagnostics */

static void say(eua_client *client, int level, const char *format, ...) EUA_PRINTF(3, 4);
static void say(eua_client *client, int level, const char *format, ...) {
    pthread_mutex_lock(&lock);
    eua_log_fn log = client->log;
    void *data = client->log_data;
    pthread_mutex_unlock(&lock);
    if (!log) return;
    va_list arguments;
    va_start(arguments, format);
    char *message = NULL;
    if (vasprintf(&message, format, arguments) < 0) abort();
    va_end(arguments);
    log(data, level, message);
    free(message);
}

int eua_api_version(void) { return EUA_API_VERSION; }

const char *eua_version(void) { return EUA_VERSION_STRING; }

void eua_string_free(char *string) {
    if (!string) return;
    explicit_bzero(string, strlen(string));
    free(string);
}

static void wipe_free(char *text) { eua_string_free(text); }

/* ---------------------------------------------------------------- operations: references, finishing, delivery */

static eua_op *op_ref(eua_op *op) {
    __atomic_add_fetch(&op->refs, 1, __ATOMIC_RELAXED);
    return op;
}

static void op_unref(void *data) {
    eua_op *op = data;
    if (__atomic_sub_fetch(&op->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
    eua_json_free(op->arguments);
    wipe_free(op->account);
    eua_error_free(op->pending_error);
    free(op->token);
    free(op->handle);
    free(op->service_owner);
    sd_bus_message_unref(op->early_response);
    wipe_free(op->result);
    eua_error_free(op->error);
    free(op);
}

/* Runs `done` unless the op was freed; consumes one reference. The dispatcher's `run`. */
static void deliver(void *data) {
    eua_op *op = data;
    pthread_mutex_lock(&lock);
    bool run = !op->freed && !op->delivered;
    op->delivered = true;
    if (run) {
        op->running_done = pthread_self();
        op->has_thread = true;
    }
    pthread_mutex_unlock(&lock);
    if (run) {
        op->done(op->user_data, op->result, op->error);
        pthread_mutex_lock(&lock);
        op->has_thread = false;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
    }
    op_unref(op);
}

static void unlink_op(eua_client *client, eua_op *op) {
    for (eua_op **link = &client->ops; *link; link = &(*link)->next) {
        if (*link == op) {
            *link = op->next;
            op->next = NULL;
            return;
        }
    }
}

/* Ends `op` once with `result` (a JSON text, taken) or `error` (taken). Without effect when it ended already. On the
 * client's thread. */
static void finish(eua_op *op, char *result, eua_error *error) {
    pthread_mutex_lock(&lock);
    eua_client *client = op->client;
    if (op->finished || !client) {
        pthread_mutex_unlock(&lock);
        wipe_free(result);
        eua_error_free(error);
        return;
    }
    op->finished = true;
    op->client = NULL;
    unlink_op(client, op);
    bool hold = client->closing && !op->internal, freed = op->freed;
    eua_dispatch_fn dispatch = op->internal ? NULL : client->dispatch;
    void *dispatch_data = client->dispatch_data;
    pthread_mutex_unlock(&lock);

    /* The subscription's slot holds a reference of `op`, dropped when the slot goes. sd-bus objects are let go here,
     * on the client's thread: the op's last reference may go on any thread. */
    op->subscription = sd_bus_slot_unref(op->subscription);
    op->early_response = sd_bus_message_unref(op->early_response);
    say(client, EUA_CLIENT_LOG_DEBUG, "%s ended: %s", op->method, error ? error->name : "success");
    if (freed) {
        /* Nobody waits for it: no delivery, and the list's reference goes. */
        wipe_free(result);
        eua_error_free(error);
        op_unref(op);
        return;
    }
    op->result = result;
    op->error = error;
    if (hold) {
        pthread_mutex_lock(&lock);
        client->held = eua_realloc(client->held, (client->held_count + 1) * sizeof *client->held);
        client->held[client->held_count++] = op;
        pthread_mutex_unlock(&lock);
    } else if (dispatch) {
        dispatch(dispatch_data, deliver, op);
    } else {
        deliver(op);
    }
}

/* Queues `fn(client, op)` for the client's thread (holding a reference of `op`) and wakes it. `lock` is held. */
static void post_locked(eua_client *client, task_fn fn, eua_op *op) {
    task *t = eua_alloc(sizeof *t);
    t->fn = fn;
    t->op = op ? op_ref(op) : NULL;
    if (client->last_task) client->last_task->next = t;
    else client->tasks = t;
    client->last_task = t;
    uint64_t one = 1;
    /* The eventfd counts up to 2^64-2 writes: it cannot fill. */
    ssize_t written = write(client->wake, &one, sizeof one);
    (void)written;
}

/* Sends Close to the request `handle` (the service cancels the work; no Response follows). No reply is awaited. */
static int send_close(sd_bus *bus, const char *handle) {
    sd_bus_message *call = NULL;
    int r = sd_bus_message_new_method_call(bus, &call, EUA_SERVICE_NAME, handle, EUA_REQUEST_INTERFACE, "Close");
    if (r >= 0) r = sd_bus_message_set_auto_start(call, 0);
    if (r >= 0) r = sd_bus_message_set_expect_reply(call, 0);
    if (r >= 0) r = sd_bus_send(bus, call, NULL);
    sd_bus_message_unref(call);
    return r;
}

static void close_request(eua_client *client, const char *handle) {
    say(client, EUA_CLIENT_LOG_DEBUG, "closing the request %s", handle);
    int r = send_close(client->bus, handle);
    if (r < 0) say(client, EUA_CLIENT_LOG_WARNING, "could not close the request %s: %s", handle, strerror(-r));
}

/* ---------------------------------------------------------------- operations on the client's thread */

static void cancel_in_thread(eua_client *client, eua_op *op) {
    pthread_mutex_lock(&lock);
    bool running = op->client != NULL;
    pthread_mutex_unlock(&lock);
    if (!running) return;
    if (op->handle) close_request(client, op->handle);
    /* A call still in flight: its reply closes the request it made (on_request_reply). */
    finish(op, NULL, eua_error_new(EUA_CLIENT_ERROR_PROGRAM_CANCELED, "%s: cancelled by the app", op->method));
}

static void on_deadline(eua_client *client, eua_op *op) {
    if (op->handle) close_request(client, op->handle);
    finish(op, NULL, eua_error_new(EUA_CLIENT_ERROR_TIMED_OUT,
                                   "%s: the service sent no answer within %u s; the request was closed, try again",
                                   op->method, op->deadline_seconds));
}

/* A Response of the request (its body, `ua{sv}`): ends the operation with its results. */
static void take_response(eua_op *op, sd_bus_message *message) {
    uint32_t code;
    int r = sd_bus_message_read_basic(message, 'u', &code);
    eua_buf json = {0};
    if (r > 0) r = eua_message_write_json(&json, message);
    if (r <= 0) {
        eua_buf_wipe(&json);
        finish(op, NULL, eua_error_new(EUA_CLIENT_ERROR_FAILED, "%s: the service's Response could not be read (%s); "
                                       "is the service a newer version than this library?", op->method,
                                       strerror(r < 0 ? -r : EBADMSG)));
        return;
    }
    if (code == 0) {
        finish(op, eua_buf_steal(&json), NULL);
        return;
    }
    if (code == 1) {
        finish(op, NULL, eua_error_new(EUA_CLIENT_ERROR_USER_CANCELED,
                                       "%s: the person closed the browser or declined", op->method));
    } else {
        char *message_text = NULL;
        eua_json *results = eua_json_parse(json.text, &message_text);
        free(message_text);
        finish(op, NULL, eua_error_from_response(results, op->method));
        eua_json_free(results);
    }
    eua_buf_wipe(&json);
}

/* Only the connection that answered the call may end it: a signal sent straight to this connection reaches it
 * whatever its match rules say, so the sender is checked here, by unique name. */
static int on_response(sd_bus_message *message, void *data, sd_bus_error *ret_error) {
    (void)ret_error;
    eua_op *op = data;
    const char *sender = sd_bus_message_get_sender(message);
    const char *path = sd_bus_message_get_path(message);
    if (!sender || !path || !sd_bus_message_has_signature(message, "ua{sv}")) return 0;
    if (op->handle && strcmp(path, op->handle) != 0) return 0;
    if (!op->service_owner) {
        if (!op->early_response) op->early_response = sd_bus_message_ref(message);
        return 0;
    }
    if (strcmp(sender, op->service_owner) != 0) {
        pthread_mutex_lock(&lock);
        eua_client *client = op->client;
        pthread_mutex_unlock(&lock);
        if (client) say(client, EUA_CLIENT_LOG_WARNING, "%s: ignored a Response from %s, which is not the service (%s)",
                        op->method, sender, op->service_owner);
        return 0;
    }
    take_response(op, message);
    return 0;
}

/* Listens for the Response signals on `path`. No sender in the rule: sd-bus compares a rule's sender with the
 * message's unique name, never a well-known one; on_response checks the sender itself. */
static int subscribe(eua_client *client, eua_op *op, const char *path) {
    op->subscription = sd_bus_slot_unref(op->subscription);
    int r = sd_bus_match_signal_async(client->bus, &op->subscription, NULL, path, EUA_REQUEST_INTERFACE, "Response",
                                      on_response, NULL, op);
    if (r < 0) return r;
    op_ref(op);
    sd_bus_slot_set_destroy_callback(op->subscription, op_unref);
    return r;
}

static bool ends_with(const char *text, const char *suffix) {
    size_t n = strlen(text), m = strlen(suffix);
    return n >= m && strcmp(text + n - m, suffix) == 0;
}

/* The error of `method` on a connection that closed (its bus daemon ended). */
static eua_error *bus_closed(const char *method, const char *detail) {
    return eua_error_new(EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE, "%s: the connection to the session bus closed (%s); "
                         "start the app again in a desktop session", method, detail);
}

/* The failure of a call's `reply` (an error reply, or one of another signature than `signature`), or NULL. */
static eua_error *reply_error(sd_bus_message *reply, const char *signature, const char *method) {
    const sd_bus_error *error = sd_bus_message_get_error(reply);
    /* sd-bus ends the calls in flight of a connection that closed with NoReply; say what happened. */
    if (error && sd_bus_is_open(sd_bus_message_get_bus(reply)) <= 0) return bus_closed(method, error->message);
    if (error) return eua_error_from_bus(error, method);
    if (!sd_bus_message_has_signature(reply, signature) || !sd_bus_message_get_sender(reply)) {
        const char *got = sd_bus_message_get_signature(reply, true);
        return eua_error_new(EUA_CLIENT_ERROR_FAILED, "%s: the service answered with (%s) instead of (%s); is it a "
                             "newer version than this library?", method, got ? got : "", signature);
    }
    return NULL;
}

/* The reply of SignIn or SignOut: the request's handle, and who answered. */
static int on_request_reply(sd_bus_message *reply, void *data, sd_bus_error *ret_error) {
    (void)ret_error;
    eua_op *op = data;
    sd_bus *bus = sd_bus_message_get_bus(reply);
    eua_error *failure = reply_error(reply, "o", op->method);
    const char *handle = NULL;
    if (!failure && sd_bus_message_read_basic(reply, 'o', &handle) <= 0) {
        failure = eua_error_new(EUA_CLIENT_ERROR_FAILED, "%s: the service's reply could not be read", op->method);
    }
    pthread_mutex_lock(&lock);
    eua_client *client = op->client;
    pthread_mutex_unlock(&lock);
    if (!client) {
        /* Cancelled (or timed out) while the call was in flight: close the request it made. */
        if (!failure) send_close(bus, handle);
        eua_error_free(failure);
        op->early_response = sd_bus_message_unref(op->early_response);
    } else if (failure) {
        finish(op, NULL, failure);
    } else {
        op->handle = eua_strdup(handle);
        op->service_owner = eua_strdup(sd_bus_message_get_sender(reply));
        /* An older service may choose another path: listen there (xdg-desktop-portal's clients do the same). */
        int r = ends_with(op->handle, op->token) ? 0 : subscribe(client, op, op->handle);
        if (r < 0) {
            close_request(client, op->handle);
            finish(op, NULL, eua_error_from_errno(r, op->method));
            return 0;
        }
        say(client, EUA_CLIENT_LOG_DEBUG, "%s: waiting for the Response of %s", op->method, op->handle);
        sd_bus_message *early = op->early_response;
        op->early_response = NULL;
        if (early && strcmp(sd_bus_message_get_sender(early), op->service_owner) == 0
            && strcmp(sd_bus_message_get_path(early), op->handle) == 0) {
            take_response(op, early);
        }
        sd_bus_message_unref(early);
    }
    return 0;
}

/* The reply of GetAccessToken or ListAccounts: the token or the accounts as JSON. */
static int on_call_reply(sd_bus_message *reply, void *data, sd_bus_error *ret_error) {
    (void)ret_error;
    eua_op *op = data;
    pthread_mutex_lock(&lock);
    bool running = op->client != NULL;
    pthread_mutex_unlock(&lock);
    if (!running) return 0;   /* cancelled or timed out: nothing to close */
    eua_error *failure = reply_error(reply, op->kind == OP_TOKEN ? "sxa{sv}" : "aa{sv}", op->method);
    if (failure) {
        finish(op, NULL, failure);
        return 0;
    }
    eua_buf json = {0};
    int r = op->kind == OP_TOKEN ? eua_token_json(&json, reply) : eua_message_write_json(&json, reply);
    if (r <= 0) {
        eua_buf_wipe(&json);
        finish(op, NULL, eua_error_new(EUA_CLIENT_ERROR_FAILED, "%s: the service's reply could not be read (%s)",
                                       op->method, strerror(r < 0 ? -r : EBADMSG)));
        return 0;
    }
    finish(op, eua_buf_steal(&json), NULL);
    return 0;
}

/* The method call of `op`, its arguments appended. */
static int build_call(eua_client *client, eua_op *op, sd_bus_message **call) {
    int r = sd_bus_message_new_method_call(client->bus, call, EUA_SERVICE_NAME, EUA_SERVICE_PATH,
                                           EUA_SERVICE_INTERFACE, op->method);
    if (r < 0) return r;
    switch (op->kind) {
    case OP_SIGN_IN:
        r = sd_bus_message_append_basic(*call, 's', eua_json_separate(op->arguments, op->keys));
        if (r >= 0) r = eua_append_dict(*call, op->arguments, op->keys, true, NULL);
        if (r >= 0) r = eua_append_dict(*call, op->arguments, op->keys, false, op->token);
        break;
    case OP_SIGN_OUT:
        r = sd_bus_message_append(*call, "ss", eua_json_separate(op->arguments, op->keys), op->account);
        if (r >= 0) r = eua_append_dict(*call, op->arguments, op->keys, false, op->token);
        break;
    case OP_TOKEN:
        r = sd_bus_message_append_basic(*call, 's', op->account);
        if (r >= 0) r = eua_append_dict(*call, op->arguments, op->keys, false, NULL);
        break;
    case OP_LIST:
        r = sd_bus_message_append(*call, "a{sv}", 0);
        break;
    }
    return r;
}

static void start_in_thread(eua_client *client, eua_op *op) {
    pthread_mutex_lock(&lock);
    bool running = op->client != NULL;
    pthread_mutex_unlock(&lock);
    if (!running) return;
    if (op->pending_error) {
        eua_error *error = op->pending_error;
        op->pending_error = NULL;
        finish(op, NULL, error);
        return;
    }
    say(client, EUA_CLIENT_LOG_DEBUG, "%s: calling the service", op->method);
    sd_bus_message *call = NULL;
    int r = build_call(client, op, &call);
    if (r >= 0 && (op->kind == OP_SIGN_IN || op->kind == OP_SIGN_OUT)) {
        /* Subscribed before the call, on the path the service will use (xdg-desktop-portal's rule). */
        char *path = eua_printf(EUA_SERVICE_PATH "/request/%s/%s", client->sender, op->token);
        r = subscribe(client, op, path);
        free(path);
    }
    if (r >= 0) {
        /* The call's slot is the bus's (floating) and holds a reference of `op` until the reply ran. */
        sd_bus_slot *slot = NULL;
        bool request = op->kind == OP_SIGN_IN || op->kind == OP_SIGN_OUT;
        r = sd_bus_call_async(client->bus, &slot, call, request ? on_request_reply : on_call_reply, op, op->call_usec);
        if (r >= 0) {
            op_ref(op);
            sd_bus_slot_set_destroy_callback(slot, op_unref);
            sd_bus_slot_set_floating(slot, 1);
            sd_bus_slot_unref(slot);
        }
    }
    sd_bus_message_unref(call);
    if (r < 0) {
        finish(op, NULL, sd_bus_is_open(client->bus) <= 0 ? bus_closed(op->method, strerror(-r))
                                                         : eua_error_from_errno(r, op->method));
        return;
    }
    pthread_mutex_lock(&lock);
    op->deadline_usec = now_usec() + (uint64_t)op->deadline_seconds * USEC_PER_SEC;
    pthread_mutex_unlock(&lock);
}

/* A new operation of `client`, registered and queued for its thread. Takes `arguments`, `account` and `error`. */
static eua_op *start(eua_client *client, op_kind kind, const char *method, eua_json *arguments,
                     const eua_json_key *keys, char *account, eua_error *error, unsigned deadline_seconds,
                     uint64_t call_usec, eua_done_fn done, void *user_data, bool internal) {
    eua_op *op = eua_alloc(sizeof *op);
    op->refs = 1;
    op->kind = kind;
    op->done = done;
    op->user_data = user_data;
    op->method = method;
    op->arguments = arguments;
    op->keys = keys;
    op->account = account;
    op->pending_error = error;
    op->deadline_seconds = deadline_seconds;
    op->call_usec = call_usec;
    op->internal = internal;
    pthread_mutex_lock(&lock);
    if (kind == OP_SIGN_IN || kind == OP_SIGN_OUT) op->token = eua_printf("eua_%u", ++client->next_token);
    op->client = client;
    op->next = client->ops;
    client->ops = op_ref(op);
    post_locked(client, start_in_thread, op);
    pthread_mutex_unlock(&lock);
    return op;
}

/* ---------------------------------------------------------------- public operations */

static const eua_json_key sign_in_keys[] = {
    {"issuer", "s", 0, 0, true, false},        {"client_id", "s", 0, 0, true, false},
    {"scopes", "as", 0, 0, true, false},       {"resource", "as", 0, 0, true, false},
    {"login_hint", "s", 0, 0, false, false},   {"prompt", "s", 0, 0, false, false},
    {"max_age", "u", 0, 0, false, false},      {"account", "s", 0, 0, false, false},
    {"timeout", "u", 1, 3600, false, false},   {"agent", "s", 0, 0, false, false},
    {"parent_window", "s", 0, 0, false, true}, {NULL, NULL, 0, 0, false, false},
};

static const eua_json_key sign_out_keys[] = {
    {"revoke", "b", 0, 0, false, false}, {"end_session", "b", 0, 0, false, false},
    {"parent_window", "s", 0, 0, false, true}, {NULL, NULL, 0, 0, false, false},
};

static const eua_json_key token_keys[] = {
    {"min_valid", "u", 0, 86400, false, false}, {"id_token", "b", 0, 0, false, false}, {NULL, NULL, 0, 0, false, false}};

/* Prefixes the message of `error` with `prefix`. */
static eua_error *prefixed(eua_error *error, const char *prefix) {
    char *message = eua_printf("%s%s", prefix, error->message);
    free((char *)error->message);
    error->message = message;
    return error;
}

eua_op *eua_sign_in(eua_client *client, const char *request_json, eua_done_fn done, void *user_data) {
    if (!client || !done) return NULL;
    static const char *const required[] = {"issuer", "client_id", NULL};
    eua_error *error = NULL;
    eua_json *request = NULL;
    unsigned seconds = DEFAULT_SIGN_IN_SECONDS + MARGIN_SECONDS;
    if (request_json == NULL) {
        error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT,
                              "SignIn: request_json is NULL; pass an object with at least \"issuer\" and \"client_id\"");
    } else if ((request = eua_json_check(request_json, sign_in_keys, required, &error))) {
        const eua_json *timeout = eua_json_member(request, "timeout");
        if (timeout) seconds = (unsigned)timeout->integer + MARGIN_SECONDS;
    } else {
        prefixed(error, "SignIn: ");
    }
    return start(client, OP_SIGN_IN, "SignIn", request, sign_in_keys, NULL, error, seconds,
                 (uint64_t)CALL_MS * USEC_PER_MSEC, done, user_data, false);
}

/* The checked arguments of SignOut and GetAccessToken: an account and an options object. */
static eua_json *account_arguments(const char *method, const char *account, const char *options_json,
                                   const eua_json_key *keys, eua_error **error) {
    if (!account) {
        *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT,
                               "%s: account is NULL; pass an account id from a sign-in or eua_list_accounts", method);
        return NULL;
    }
    if (!eua_utf8_valid(account, strlen(account))) {
        *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "%s: account is not UTF-8", method);
        return NULL;
    }
    eua_json *options = eua_json_check(options_json, keys, NULL, error);
    if (!options) {
        char *prefix = eua_printf("%s: options_json: ", method);
        prefixed(*error, prefix);
        free(prefix);
    }
    return options;
}

eua_op *eua_sign_out(eua_client *client, const char *account, const char *options_json, eua_done_fn done,
                     void *user_data) {
    if (!client || !done) return NULL;
    eua_error *error = NULL;
    eua_json *options = account_arguments("SignOut", account, options_json, sign_out_keys, &error);
    return start(client, OP_SIGN_OUT, "SignOut", options, sign_out_keys, options ? eua_strdup(account) : NULL, error,
                 SIGN_OUT_SECONDS, (uint64_t)CALL_MS * USEC_PER_MSEC, done, user_data, false);
}

eua_op *eua_get_access_token(eua_client *client, const char *account, const char *options_json, eua_done_fn done,
                             void *user_data) {
    if (!client || !done) return NULL;
    eua_error *error = NULL;
    eua_json *options = account_arguments("GetAccessToken", account, options_json, token_keys, &error);
    return start(client, OP_TOKEN, "GetAccessToken", options, token_keys, options ? eua_strdup(account) : NULL, error,
                 TOKEN_CALL_MS / 1000 + MARGIN_SECONDS, (uint64_t)TOKEN_CALL_MS * USEC_PER_MSEC, done, user_data,
                 false);
}

void eua_op_cancel(eua_op *op) {
    if (!op) return;
    pthread_mutex_lock(&lock);
    if (!op->finished && op->client && !op->cancel_requested) {
        op->cancel_requested = true;
        post_locked(op->client, cancel_in_thread, op);
    }
    pthread_mutex_unlock(&lock);
}

void eua_op_free(eua_op *op) {
    if (!op) return;
    pthread_mutex_lock(&lock);
    op->freed = true;
    while (op->has_thread && !pthread_equal(op->running_done, pthread_self())) pthread_cond_wait(&changed, &lock);
    if (!op->finished && op->client && !op->cancel_requested) {
        op->cancel_requested = true;
        post_locked(op->client, cancel_in_thread, op);
    }
    pthread_mutex_unlock(&lock);
    op_unref(op);
}

/* ---------------------------------------------------------------- synchronous calls, on the caller's thread */

/* What a synchronous call waits for: its operation's `done`. */
typedef struct {
    bool ended;
    char *result;
    eua_error *error;
} waiter;

static void on_sync_done(void *data, const char *result_json, const eua_error *error) {
    waiter *w = data;
    char *result = eua_strdup(result_json);
    eua_error *copy = NULL;
    if (error) {
        copy = eua_error_new(error->code, "%s", error->message);
        free((char *)copy->oauth_error);
        copy->oauth_error = eua_strdup(error->oauth_error);
    }
    pthread_mutex_lock(&lock);
    w->result = result;
    w->error = copy;
    w->ended = true;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

/* Called on the client's own thread (from a `done` without a dispatcher), where no operation can run while it
 * waits: the call is made and awaited right here (sd_bus_call keeps what else arrives for later). */
static char *call_on_own_thread(eua_client *client, op_kind kind, const char *method, eua_json *arguments,
                                const eua_json_key *keys, char *account, int timeout_ms, eua_error **error) {
    eua_op op = {.refs = 1, .kind = kind, .method = method, .arguments = arguments, .keys = keys, .account = account};
    sd_bus_message *call = NULL, *reply = NULL;
    sd_bus_error bus_error = SD_BUS_ERROR_NULL;
    eua_buf json = {0};
    char *result = NULL;
    int r = build_call(client, &op, &call);
    if (r >= 0) r = sd_bus_call(client->bus, call, (uint64_t)timeout_ms * USEC_PER_MSEC, &bus_error, &reply);
    if (r < 0) {
        eua_error_give(sd_bus_error_is_set(&bus_error) ? eua_error_from_bus(&bus_error, method)
                                                       : eua_error_from_errno(r, method), error);
    } else {
        eua_error *failure = reply_error(reply, kind == OP_TOKEN ? "sxa{sv}" : "aa{sv}", method);
        if (!failure) {
            r = kind == OP_TOKEN ? eua_token_json(&json, reply) : eua_message_write_json(&json, reply);
            if (r <= 0) failure = eua_error_new(EUA_CLIENT_ERROR_FAILED, "%s: the service's reply could not be read",
                                                method);
        }
        if (failure) eua_error_give(failure, error);
        else result = eua_buf_steal(&json);
    }
    eua_buf_wipe(&json);
    sd_bus_error_free(&bus_error);
    sd_bus_message_unref(call);
    sd_bus_message_unref(reply);
    eua_json_free(arguments);
    wipe_free(account);
    return result;
}

/* Runs a plain call as an operation and waits for its end, at most `timeout_ms` (and a margin for the thread). */
static char *call_sync(eua_client *client, op_kind kind, const char *method, eua_json *arguments,
                       const eua_json_key *keys, char *account, int timeout_ms, eua_error **error) {
    if (pthread_equal(pthread_self(), client->thread)) {
        return call_on_own_thread(client, kind, method, arguments, keys, account, timeout_ms, error);
    }
    waiter w = {0};
    unsigned seconds = (unsigned)(timeout_ms / 1000) + MARGIN_SECONDS;
    eua_op *op = start(client, kind, method, arguments, keys, account, NULL, seconds,
                       (uint64_t)timeout_ms * USEC_PER_MSEC, on_sync_done, &w, true);
    uint64_t deadline = now_usec() + ((uint64_t)timeout_ms + 5000) * USEC_PER_MSEC;
    pthread_mutex_lock(&lock);
    while (!w.ended && wait_until(deadline)) {}
    bool ended = w.ended;
    pthread_mutex_unlock(&lock);
    /* After eua_op_free, on_sync_done is not running and will not run: `w` may go. */
    eua_op_free(op);
    if (!ended) {
        eua_error_give(eua_error_new(EUA_CLIENT_ERROR_TIMED_OUT, "%s: the library's thread did not answer within %d ms; "
                                     "try again", method, timeout_ms + 5000), error);
        return NULL;
    }
    if (w.error) eua_error_give(w.error, error);
    return w.result;
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
    eua_json *options = account_arguments("GetAccessToken", account, options_json, token_keys, &failure);
    if (!options) {
        eua_error_give(failure, error);
        return NULL;
    }
    return call_sync(client, OP_TOKEN, "GetAccessToken", options, token_keys, eua_strdup(account), timeout_ms, error);
}

char *eua_list_accounts(eua_client *client, eua_error **error) {
    if (!client) {
        eua_error_give(eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "ListAccounts: client is NULL"), error);
        return NULL;
    }
    return call_sync(client, OP_LIST, "ListAccounts", NULL, NULL, NULL, CALL_MS, error);
}

/* ---------------------------------------------------------------- the client and its thread */

/* Waits at most until `deadline_usec` for the connection's socket (or, with `wake`, the eventfd) to be ready. */
static int poll_bus(eua_client *client, uint64_t deadline_usec, bool wake) {
    int events = sd_bus_get_events(client->bus);
    uint64_t bus_deadline = UINT64_MAX;
    if (events < 0) events = 0;
    if (sd_bus_get_timeout(client->bus, &bus_deadline) < 0) bus_deadline = UINT64_MAX;
    if (bus_deadline < deadline_usec) deadline_usec = bus_deadline;
    struct pollfd fds[2] = {{.fd = sd_bus_get_fd(client->bus), .events = (short)events},
                            {.fd = client->wake, .events = POLLIN}};
    int timeout = -1;
    if (deadline_usec != UINT64_MAX) {
        uint64_t now = now_usec();
        uint64_t ms = deadline_usec > now ? (deadline_usec - now + USEC_PER_MSEC - 1) / USEC_PER_MSEC : 0;
        timeout = ms > 3600000 ? 3600000 : (int)ms;
    }
    int r = poll(fds, wake ? 2 : 1, timeout);
    if (r > 0 && wake && (fds[1].revents & POLLIN)) {
        uint64_t count;
        ssize_t got = read(client->wake, &count, sizeof count);
        (void)got;
    }
    return r < 0 && errno != EINTR ? -errno : 0;
}

/* Connects and says Hello, at most `connect_timeout_ms`; NULL, or what went wrong. On the client's thread. */
static eua_error *connect_bus(eua_client *client) {
    int r = sd_bus_new(&client->bus);
    if (r >= 0) r = sd_bus_set_address(client->bus, client->address);
    if (r >= 0) r = sd_bus_set_bus_client(client->bus, 1);
    if (r >= 0) r = sd_bus_negotiate_fds(client->bus, 0);
    if (r >= 0) r = sd_bus_start(client->bus);
    uint64_t deadline = now_usec() + (uint64_t)client->connect_timeout_ms * USEC_PER_MSEC;
    while (r >= 0) {
        r = sd_bus_is_ready(client->bus);
        if (r != 0) break;
        r = sd_bus_process(client->bus, NULL);
        if (r != 0) continue;
        if (now_usec() >= deadline) {
            return eua_error_new(EUA_CLIENT_ERROR_TIMED_OUT, "connecting to the bus %s took longer than %u ms; is its "
                                 "dbus-daemon running?", client->address, client->connect_timeout_ms);
        }
        r = poll_bus(client, deadline, false);
    }
    const char *unique = NULL;
    if (r > 0) r = sd_bus_get_unique_name(client->bus, &unique);
    if (r < 0 || !unique) {
        char scratch[128];
        return eua_error_new(EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE,
                             "could not connect to the bus %s (%s); run the app in a desktop session, or give "
                             "\"bus_address\"", client->address, strerror_r(r < 0 ? -r : EIO, scratch, sizeof scratch));
    }
    client->sender = eua_strdup(unique + 1);
    for (char *p = client->sender; *p; p++) if (*p == '.') *p = '_';
    return NULL;
}

/* Ends every unfinished operation with `code` (the bus closed, or the client is freed). */
static void finish_all(eua_client *client, eua_client_error_code code, const char *why) {
    pthread_mutex_lock(&lock);
    size_t count = 0;
    for (eua_op *op = client->ops; op; op = op->next) count++;
    eua_op **ops = eua_alloc((count + 1) * sizeof *ops);
    count = 0;
    for (eua_op *op = client->ops; op; op = op->next) ops[count++] = op_ref(op);
    pthread_mutex_unlock(&lock);
    for (size_t i = 0; i < count; i++) {
        if (ops[i]->handle && code == EUA_CLIENT_ERROR_PROGRAM_CANCELED) close_request(client, ops[i]->handle);
        finish(ops[i], NULL, eua_error_new(code, "%s: %s", ops[i]->method, why));
        op_unref(ops[i]);
    }
    free(ops);
}

static void close_all_in_thread(eua_client *client, eua_op *unused) {
    (void)unused;
    finish_all(client, EUA_CLIENT_ERROR_PROGRAM_CANCELED, "the client was freed");
    pthread_mutex_lock(&lock);
    client->stop = true;
    pthread_mutex_unlock(&lock);
}

/* Ends the operations whose deadline passed; the nearest deadline still ahead, or UINT64_MAX. */
static uint64_t run_deadlines(eua_client *client) {
    uint64_t now = now_usec(), next = UINT64_MAX;
    eua_op *expired = NULL;
    pthread_mutex_lock(&lock);
    for (eua_op *op = client->ops; op; op = op->next) {
        if (!op->deadline_usec) continue;
        if (op->deadline_usec <= now && !expired) expired = op_ref(op);
        else if (op->deadline_usec < next) next = op->deadline_usec;
    }
    pthread_mutex_unlock(&lock);
    if (expired) {
        on_deadline(client, expired);
        op_unref(expired);
        return now;   /* look again at once: another may have expired too */
    }
    return next;
}

/* Runs the queued tasks; whether the client's thread must stop. */
static bool run_tasks(eua_client *client) {
    pthread_mutex_lock(&lock);
    task *t = client->tasks;
    client->tasks = client->last_task = NULL;
    pthread_mutex_unlock(&lock);
    while (t) {
        task *next = t->next;
        t->fn(client, t->op);
        if (t->op) op_unref(t->op);
        free(t);
        t = next;
    }
    pthread_mutex_lock(&lock);
    bool stop = client->stop;
    pthread_mutex_unlock(&lock);
    return stop;
}

/* Sends what the connection still holds (the requests' Close calls), at most FLUSH_MS. */
static void flush_bus(eua_client *client) {
    uint64_t deadline = now_usec() + (uint64_t)FLUSH_MS * USEC_PER_MSEC, queued = 0;
    while (sd_bus_get_n_queued_write(client->bus, &queued) >= 0 && queued > 0 && now_usec() < deadline) {
        if (sd_bus_process(client->bus, NULL) < 0) break;
        if (poll_bus(client, deadline, false) < 0) break;
    }
}

static void *thread_main(void *data) {
    eua_client *client = data;
    prctl(PR_SET_NAME, "eua-client");   /* named from inside: no /proc file to open */
    eua_error *failure = connect_bus(client);
    pthread_mutex_lock(&lock);
    client->connect_error = failure;
    client->ready = true;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    if (failure) return NULL;
    bool open = true;
    while (!run_tasks(client)) {
        int r = 0;
        while (open && (r = sd_bus_process(client->bus, NULL)) > 0) {}
        if (open && r < 0) {
            /* The bus closed (its daemon ended): no Response or reply can come any more. */
            open = false;
            say(client, EUA_CLIENT_LOG_WARNING, "the connection to the bus %s closed: %s", client->address,
                strerror(-r));
            finish_all(client, EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE, "the connection to the session bus closed; "
                       "start the app again in a desktop session");
        }
        uint64_t next = run_deadlines(client);
        if (next <= now_usec()) continue;
        if (open) {
            poll_bus(client, next, true);
        } else {
            struct pollfd wake = {.fd = client->wake, .events = POLLIN};
            uint64_t now = now_usec();
            int timeout = next == UINT64_MAX ? -1 : (int)((next - now) / USEC_PER_MSEC + 1);
            if (poll(&wake, 1, timeout) > 0) {
                uint64_t count;
                ssize_t got = read(client->wake, &count, sizeof count);
                (void)got;
            }
        }
    }
    if (open) flush_bus(client);
    return NULL;
}

/* After the client's thread ended: drops the tasks it left (each only holds a reference), closes the connection
 * (its pending calls' slots go with it, dropping their references) and frees the client. */
static void client_destroy(eua_client *client) {
    for (task *t = client->tasks, *next; t; t = next) {
        next = t->next;
        if (t->op) op_unref(t->op);
        free(t);
    }
    if (client->bus) {
        sd_bus_close(client->bus);
        sd_bus_unref(client->bus);
    }
    close(client->wake);
    eua_error_free(client->connect_error);
    free(client->held);
    free(client->sender);
    free(client->address);
    free(client);
}

/* The session bus's address: DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus (as GLib and sd-bus find it). */
static char *session_bus_address(eua_error **error) {
    const char *address = getenv("DBUS_SESSION_BUS_ADDRESS");
    if (address && *address) return eua_strdup(address);
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    if (runtime && *runtime) {
        char *path = eua_printf("%s/bus", runtime);
        bool exists = access(path, F_OK) == 0;
        free(path);
        if (exists) return eua_printf("unix:path=%s/bus", runtime);
    }
    *error = eua_error_new(EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE,
                           "eua_client_new: no session bus (DBUS_SESSION_BUS_ADDRESS is not set and there is no "
                           "$XDG_RUNTIME_DIR/bus); run the app in a desktop session, or set DBUS_SESSION_BUS_ADDRESS");
    return NULL;
}

eua_client *eua_client_new(const char *options_json, eua_error **error) {
    static const eua_json_key known[] = {{"bus_address", "s", 0, 0, false, false},
                                         {"connect_timeout_ms", "u", 1, 60000, false, false},
                                         {NULL, NULL, 0, 0, false, false}};
    eua_error *failure = NULL;
    eua_json *options = eua_json_check(options_json, known, NULL, &failure);
    if (!options) {
        eua_error_give(prefixed(failure, "eua_client_new: options_json: "), error);
        return NULL;
    }
    const eua_json *address = eua_json_member(options, "bus_address");
    const eua_json *timeout = eua_json_member(options, "connect_timeout_ms");
    char *bus_address = address ? eua_strdup(address->string) : session_bus_address(&failure);
    unsigned connect_ms = timeout ? (unsigned)timeout->integer : 10000;
    eua_json_free(options);
    if (!bus_address) {
        eua_error_give(failure, error);
        return NULL;
    }

    pthread_once(&changed_once, make_changed);
    eua_client *client = eua_alloc(sizeof *client);
    client->address = bus_address;
    client->connect_timeout_ms = connect_ms;
    client->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (client->wake < 0) {
        eua_error_give(eua_error_new(EUA_CLIENT_ERROR_FAILED, "eua_client_new: no eventfd (%s)", strerror(errno)),
                       error);
        free(client->address);
        free(client);
        return NULL;
    }
    /* The library's thread takes no signal: they stay the app's. */
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    int r = pthread_create(&client->thread, NULL, thread_main, client);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (r != 0) {
        eua_error_give(eua_error_new(EUA_CLIENT_ERROR_FAILED, "eua_client_new: no thread could be started (%s)",
                                     strerror(r)), error);
        close(client->wake);
        free(client->address);
        free(client);
        return NULL;
    }
    /* The thread's own deadline ends the attempt; this one only guards against a thread that never answers. */
    uint64_t deadline = now_usec() + ((uint64_t)connect_ms + 5000) * USEC_PER_MSEC;
    pthread_mutex_lock(&lock);
    while (!client->ready && wait_until(deadline)) {}
    bool ready = client->ready;
    eua_error *connect_error = client->connect_error;
    client->connect_error = NULL;
    if (!ready) client->stop = true;
    pthread_mutex_unlock(&lock);
    if (!ready || connect_error) {
        if (!connect_error) {
            connect_error = eua_error_new(EUA_CLIENT_ERROR_TIMED_OUT, "eua_client_new: the connection did not "
                                          "finish in %u ms", connect_ms);
        }
        eua_error_give(connect_error, error);
        /* The thread ends on its own (a failed connection) or at its next task check (stop). */
        pthread_join(client->thread, NULL);
        client_destroy(client);
        return NULL;
    }
    return client;
}

void eua_client_set_dispatcher(eua_client *client, eua_dispatch_fn fn, void *dispatcher_data) {
    if (!client) return;
    pthread_mutex_lock(&lock);
    client->dispatch = fn;
    client->dispatch_data = fn ? dispatcher_data : NULL;
    pthread_mutex_unlock(&lock);
}

void eua_client_set_log(eua_client *client, eua_log_fn fn, void *log_data) {
    if (!client) return;
    pthread_mutex_lock(&lock);
    client->log = fn;
    client->log_data = fn ? log_data : NULL;
    pthread_mutex_unlock(&lock);
}

void eua_client_free(eua_client *client) {
    if (!client) return;
    if (pthread_equal(pthread_self(), client->thread)) {
        fprintf(stderr, "libexternaluseragent: eua_client_free was called on the client's own thread (from a done "
                        "callback without a dispatcher); it would wait for itself. Free the client from another "
                        "thread.\n");
        return;
    }
    /* Finish every operation on the client's thread (where their subscriptions live), then stop it. */
    pthread_mutex_lock(&lock);
    client->closing = true;
    post_locked(client, close_all_in_thread, NULL);
    pthread_mutex_unlock(&lock);
    pthread_join(client->thread, NULL);
    pthread_mutex_lock(&lock);
    eua_op **held = client->held;
    size_t count = client->held_count;
    client->held = NULL;
    client->held_count = 0;
    pthread_mutex_unlock(&lock);
    client_destroy(client);
    /* The operations finished while closing: their `done` runs here, before this returns. */
    for (size_t i = 0; i < count; i++) deliver(held[i]);
    free(held);
}
