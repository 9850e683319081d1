/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Unit checks of libexternaluseragent that need no sign-in service: arguments (NULL, bad JSON, wrong types and
 * ranges), the error struct, the callback rules (exactly once, never inside the starting call, the dispatcher, cancel
 * and free at every moment, eua_client_free with operations running), and that the process holds no Swift runtime.
 * Run on a private bus with no service (tests/with-private-bus): calls answer ServiceUnknown → serviceUnavailable.
 * Prints one line per check; exits 1 at the first failure. */
#include "externaluseragent.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int checks;

#define CHECK(condition, ...)                                                                      \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(condition)) {                                                                        \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #condition);                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* What one operation's callbacks saw. */
typedef struct {
    atomic_int calls;
    atomic_int inside_start;     /* set while the starting call runs: done must not see it */
    int code;
    char name[64];
    char message[512];
    int had_result;
    pthread_t thread;
    pthread_t starter;           /* the thread that started the operation */
    _Atomic(eua_op *) op;        /* for the checks that cancel or free from inside done */
    int cancel_inside, free_inside;
} outcome;

static void sleep_ms(int ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void on_done(void *user_data, const char *result_json, const eua_error *error) {
    outcome *o = user_data;
    if (atomic_load(&o->inside_start) && pthread_equal(pthread_self(), o->starter)) {
        fprintf(stderr, "FAIL: done ran inside the call that started the operation\n");
        exit(1);
    }
    o->had_result = result_json != NULL;
    if (error) {
        o->code = error->code;
        snprintf(o->name, sizeof o->name, "%s", error->name);
        snprintf(o->message, sizeof o->message, "%s", error->message);
    }
    o->thread = pthread_self();
    if (o->cancel_inside || o->free_inside) {
        for (int i = 0; i < 500 && !atomic_load(&o->op); i++) sleep_ms(10);
        eua_op_cancel(atomic_load(&o->op));
        eua_op_cancel(atomic_load(&o->op));
        if (o->free_inside) eua_op_free(atomic_load(&o->op));
    }
    atomic_fetch_add(&o->calls, 1);
}

/* Waits (at most 10 s) until `o` saw a callback. */
static int wait_done(outcome *o) {
    for (int i = 0; i < 1000 && atomic_load(&o->calls) == 0; i++) sleep_ms(10);
    return atomic_load(&o->calls);
}

static void expect_error(eua_error *error, int code, const char *name, const char *context) {
    CHECK(error != NULL, "%s: no error", context);
    CHECK(error->struct_size == sizeof(eua_error), "%s: struct_size %u", context, error->struct_size);
    CHECK(error->code == code, "%s: code %d (%s: %s), wanted %d", context, error->code, error->name, error->message, code);
    CHECK(strcmp(error->name, name) == 0, "%s: name %s", context, error->name);
    CHECK(error->message && strlen(error->message) > 10, "%s: message '%s'", context, error->message);
    CHECK(error->oauth_error == NULL, "%s: oauth_error %s", context, error->oauth_error);
    eua_error_free(error);
}

/* Starts a sign-in with `json` and expects `done` once with `code`. */
static void sign_in_fails(eua_client *client, const char *json, int code, const char *name) {
    outcome o = {0};
    o.starter = pthread_self();
    atomic_store(&o.inside_start, 1);
    eua_op *op = eua_sign_in(client, json, on_done, &o);
    atomic_store(&o.inside_start, 0);
    CHECK(op != NULL, "sign_in returned NULL for %s", json ? json : "NULL");
    CHECK(wait_done(&o) == 1, "no done within 10 s for %.80s", json ? json : "NULL");
    sleep_ms(20);
    CHECK(atomic_load(&o.calls) == 1, "done ran %d times", atomic_load(&o.calls));
    CHECK(o.code == code && strcmp(o.name, name) == 0 && !o.had_result, "%.80s: got %s (%s)", json ? json : "NULL",
          o.name, o.message);
    eua_op_free(op);
}

/* The dispatcher of the checks: queues `run` for the test's own thread. */
typedef struct {
    pthread_mutex_t lock;
    void (*run[256])(void *);
    void *data[256];
    int count;
} queue;

static void enqueue(void *dispatcher_data, void (*run)(void *), void *run_data) {
    queue *q = dispatcher_data;
    pthread_mutex_lock(&q->lock);
    if (q->count < 256) {
        q->run[q->count] = run;
        q->data[q->count] = run_data;
        q->count++;
    }
    pthread_mutex_unlock(&q->lock);
}

static int drain(queue *q) {
    pthread_mutex_lock(&q->lock);
    int count = q->count;
    q->count = 0;
    void (*run[256])(void *);
    void *data[256];
    memcpy(run, q->run, sizeof run);
    memcpy(data, q->data, sizeof data);
    pthread_mutex_unlock(&q->lock);
    for (int i = 0; i < count; i++) run[i](data[i]);
    return count;
}

static atomic_int log_lines;
static void on_log(void *data, int level, const char *message) {
    (void)data, (void)level, (void)message;
    atomic_fetch_add(&log_lines, 1);
}

/* A done that makes the synchronous calls from the library's own thread (no dispatcher): they cannot wait for that
 * thread, so the library makes them there; without a service each ends in serviceUnavailable. */
typedef struct {
    eua_client *client;
    atomic_int calls;
    int list_code, sync_code;
    pthread_t thread;
} nested;

static void on_done_nested(void *user_data, const char *result_json, const eua_error *error) {
    (void)result_json, (void)error;
    nested *n = user_data;
    n->thread = pthread_self();
    eua_error *failure = NULL;
    char *accounts = eua_list_accounts(n->client, &failure);
    n->list_code = accounts ? 0 : failure->code;
    eua_string_free(accounts);
    eua_error_free(failure);
    failure = NULL;
    char *token = eua_get_access_token_sync(n->client, "0123", NULL, 5000, &failure);
    n->sync_code = token ? 0 : failure->code;
    eua_string_free(token);
    eua_error_free(failure);
    atomic_fetch_add(&n->calls, 1);
}

static void *cancel_from_thread(void *data) {
    eua_op_cancel(data);
    eua_op_cancel(data);
    return NULL;
}

int main(void) {
    CHECK(eua_api_version() == EUA_API_VERSION, "api version %d", eua_api_version());
    CHECK(strcmp(eua_version(), "1.0.0") == 0, "version %s", eua_version());

    /* NULL is nothing everywhere it can be. */
    eua_string_free(NULL);
    eua_error_free(NULL);
    eua_op_free(NULL);
    eua_op_cancel(NULL);
    eua_client_free(NULL);
    eua_client_set_dispatcher(NULL, NULL, NULL);
    eua_client_set_log(NULL, NULL, NULL);
    CHECK(eua_sign_in(NULL, "{}", on_done, NULL) == NULL, "sign_in without a client");
    CHECK(eua_sign_out(NULL, "a", NULL, on_done, NULL) == NULL, "sign_out without a client");
    CHECK(eua_get_access_token(NULL, "a", NULL, on_done, NULL) == NULL, "get_access_token without a client");
    eua_error *error = NULL;
    CHECK(eua_list_accounts(NULL, &error) == NULL, "list without a client");
    expect_error(error, EUA_CLIENT_ERROR_INVALID_ARGUMENT, "invalidArgument", "list_accounts(NULL)");
    error = NULL;
    CHECK(eua_get_access_token_sync(NULL, "a", NULL, 1000, &error) == NULL, "sync without a client");
    expect_error(error, EUA_CLIENT_ERROR_INVALID_ARGUMENT, "invalidArgument", "get_access_token_sync(NULL)");

    /* eua_client_new: bad options answer invalidArgument; a bus that is not there, serviceUnavailable. */
    const char *bad_options[] = {"not json", "[]", "{\"bus_address\": 3}", "{\"connect_timeout_ms\": 0}",
                                 "{\"connect_timeout_ms\": 1.5}", "{\"colour\": \"blue\"}", "{\"a\":1,}", "{} {}", NULL};
    for (const char **options = bad_options; *options; options++) {
        error = NULL;
        CHECK(eua_client_new(*options, &error) == NULL, "client_new accepted %s", *options);
        expect_error(error, EUA_CLIENT_ERROR_INVALID_ARGUMENT, "invalidArgument", *options);
    }
    CHECK(eua_client_new("not json", NULL) == NULL, "client_new with a NULL error pointer");
    error = NULL;
    CHECK(eua_client_new("{\"bus_address\": \"unix:path=/nonexistent/eua-bus\"}", &error) == NULL, "dead bus");
    expect_error(error, EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE, "serviceUnavailable", "a bus that is not there");
    printf("ok: versions, NULL arguments, client options, a bus that is not there\n");

    error = NULL;
    eua_client *client = eua_client_new(NULL, &error);
    CHECK(client != NULL, "client_new on the private bus: %s", error ? error->message : "?");
    eua_client_set_log(client, on_log, NULL);
    CHECK(eua_sign_in(client, "{}", NULL, NULL) == NULL, "sign_in without done");

    /* Every malformed request ends in done with invalidArgument, never inside eua_sign_in. */
    char *deep = malloc(200);
    memset(deep, '[', 80);
    memset(deep + 80, ']', 80);
    deep[160] = 0;
    char *huge = malloc(1100000);
    memset(huge, ' ', 1099999);
    huge[0] = '{', huge[1] = '}', huge[1099999] = 0;
    const char *bad_requests[] = {
        "",                                                              /* empty */
        "{",                                                             /* not closed */
        "{\"issuer\": \"https://a\"}",                                   /* client_id missing */
        "{\"issuer\": \"https://a\", \"client_id\": 7}",                 /* wrong type */
        "{\"issuer\": \"https://a\", \"client_id\": \"c\", \"scopes\": [\"openid\", 3]}",
        "{\"issuer\": \"https://a\", \"client_id\": \"c\", \"timeout\": 0}",
        "{\"issuer\": \"https://a\", \"client_id\": \"c\", \"timeout\": 3601}",
        "{\"issuer\": \"https://a\", \"client_id\": \"c\", \"max_age\": -1}",
        "{\"issuer\": \"https://a\", \"client_id\": \"c\", \"handle_token\": \"mine\"}",   /* the library's own */
        "{\"issuer\": \"https://a\", \"client_id\": \"c\", \"issuer\": \"https://b\"}",    /* duplicate key */
        "{\"issuer\": \"https://a\", \"client_id\": \"c\\u0000\"}",
        "{\"issuer\": \"https://a\", \"client_id\": \"\\ud800\"}",                        /* lone surrogate */
        "{\"issuer\": \"https://a\", \"client_id\": \"\xff\"}",                           /* not UTF-8 */
        "{\"issuer\": \"https://a\", \"client_id\": \"c\",}",                             /* trailing comma */
        "{\"issuer\": 'https://a'}",
        "{\"issuer\": \"https://a\", \"client_id\": \"c\"} x",
        "{\"issuer\": \"https://a\", \"client_id\": \"c\", \"scopes\": NaN}",
        "[\"issuer\"]",
        deep,
        huge,
        NULL,
    };
    for (const char **request = bad_requests; *request; request++) {
        sign_in_fails(client, *request, EUA_CLIENT_ERROR_INVALID_ARGUMENT, "invalidArgument");
    }
    sign_in_fails(client, NULL, EUA_CLIENT_ERROR_INVALID_ARGUMENT, "invalidArgument");
    free(deep);
    free(huge);
    printf("ok: %zu malformed requests end in done with invalidArgument\n",
           sizeof bad_requests / sizeof *bad_requests);

    /* A well-formed request with no service on the bus: serviceUnavailable, through done. */
    sign_in_fails(client, "{\"issuer\": \"https://id.example.com\", \"client_id\": \"c\", \"scopes\": [\"openid\"],"
                          " \"login_hint\": \"al\\u00efce \\ud83d\\ude00\", \"timeout\": 60}",
                  EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE, "serviceUnavailable");
    outcome o = {0};
    eua_op *op = eua_get_access_token(client, NULL, NULL, on_done, &o);
    CHECK(wait_done(&o) == 1 && o.code == EUA_CLIENT_ERROR_INVALID_ARGUMENT, "token without account: %s", o.name);
    eua_op_free(op);
    memset(&o, 0, sizeof o);
    op = eua_sign_out(client, "0123", "{\"revoke\": \"yes\"}", on_done, &o);
    CHECK(wait_done(&o) == 1 && o.code == EUA_CLIENT_ERROR_INVALID_ARGUMENT, "revoke as a string: %s", o.name);
    CHECK(strstr(o.message, "revoke") != NULL, "the message names the key: %s", o.message);
    eua_op_free(op);
    memset(&o, 0, sizeof o);
    op = eua_sign_out(client, "0123", "{\"revoke\": false}", on_done, &o);
    CHECK(wait_done(&o) == 1 && o.code == EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE, "sign_out: %s", o.name);
    eua_op_free(op);
    memset(&o, 0, sizeof o);
    op = eua_get_access_token(client, "0123", "{\"min_valid\": 60, \"id_token\": true}", on_done, &o);
    CHECK(wait_done(&o) == 1 && o.code == EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE, "get_access_token: %s", o.name);
    eua_op_free(op);
    error = NULL;
    CHECK(eua_get_access_token_sync(client, "0123", NULL, 0, &error) == NULL, "timeout 0");
    expect_error(error, EUA_CLIENT_ERROR_INVALID_ARGUMENT, "invalidArgument", "timeout_ms 0");
    error = NULL;
    CHECK(eua_get_access_token_sync(client, NULL, NULL, 1000, &error) == NULL, "sync without account");
    expect_error(error, EUA_CLIENT_ERROR_INVALID_ARGUMENT, "invalidArgument", "sync without account");
    error = NULL;
    CHECK(eua_get_access_token_sync(client, "0123", "{\"min_valid\": \"soon\"}", 1000, &error) == NULL, "bad option");
    expect_error(error, EUA_CLIENT_ERROR_INVALID_ARGUMENT, "invalidArgument", "min_valid as a string");
    error = NULL;
    CHECK(eua_get_access_token_sync(client, "0123", NULL, 5000, &error) == NULL, "sync without service");
    expect_error(error, EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE, "serviceUnavailable", "sync without service");
    CHECK(eua_get_access_token_sync(client, "0123", NULL, 5000, NULL) == NULL, "sync, NULL error pointer");
    error = NULL;
    CHECK(eua_list_accounts(client, &error) == NULL, "list without service");
    expect_error(error, EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE, "serviceUnavailable", "list without service");
    CHECK(atomic_load(&log_lines) > 0, "the log function heard nothing");
    printf("ok: no service: serviceUnavailable through done and the sync calls; option types checked\n");

    /* Cancel at once, twice, and from another thread: done runs once. */
    const char *request = "{\"issuer\": \"https://id.example.com\", \"client_id\": \"c\"}";
    for (int i = 0; i < 50; i++) {
        memset(&o, 0, sizeof o);
        op = eua_sign_in(client, request, on_done, &o);
        pthread_t thread;
        pthread_create(&thread, NULL, cancel_from_thread, op);
        eua_op_cancel(op);
        pthread_join(thread, NULL);
        CHECK(wait_done(&o) == 1, "no done after a cancel");
        CHECK(o.code == EUA_CLIENT_ERROR_PROGRAM_CANCELED || o.code == EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE,
              "cancel ended in %s", o.name);
        eua_op_cancel(op);
        sleep_ms(i == 0 ? 100 : 0);
        CHECK(atomic_load(&o.calls) == 1, "done ran %d times", atomic_load(&o.calls));
        eua_op_free(op);
    }
    /* Cancel and free from inside done. */
    memset(&o, 0, sizeof o);
    o.cancel_inside = 1;
    o.free_inside = 1;
    o.starter = pthread_self();
    atomic_store(&o.inside_start, 1);
    atomic_store(&o.op, eua_sign_in(client, request, on_done, &o));
    atomic_store(&o.inside_start, 0);
    CHECK(wait_done(&o) == 1, "no done");
    sleep_ms(50);
    CHECK(atomic_load(&o.calls) == 1, "done ran %d times", atomic_load(&o.calls));
    /* Free at once: the op may end first (no service answers here), so done may run before eua_op_free returns —
     * at most once, and never after it returned. */
    for (int i = 0; i < 50; i++) {
        memset(&o, 0, sizeof o);
        op = eua_sign_in(client, request, on_done, &o);
        eua_op_free(op);
        int after = atomic_load(&o.calls);
        CHECK(after <= 1, "done ran %d times", after);
        sleep_ms(i == 0 ? 200 : 2);
        CHECK(atomic_load(&o.calls) == after, "done ran after eua_op_free returned");
    }
    printf("ok: cancel (twice, from another thread, from inside done), free from inside done, free at once\n");

    /* A dispatcher: done runs only when the app runs it, on the app's thread. */
    queue q = {.lock = PTHREAD_MUTEX_INITIALIZER};
    eua_client_set_dispatcher(client, enqueue, &q);
    memset(&o, 0, sizeof o);
    op = eua_sign_in(client, request, on_done, &o);
    int handed = 0;
    for (int i = 0; i < 1000 && handed == 0; i++) {
        sleep_ms(10);
        pthread_mutex_lock(&q.lock);
        handed = q.count;
        pthread_mutex_unlock(&q.lock);
    }
    CHECK(handed == 1 && atomic_load(&o.calls) == 0, "the dispatcher got %d, done ran %d", handed,
          atomic_load(&o.calls));
    CHECK(drain(&q) == 1 && atomic_load(&o.calls) == 1, "done did not run when dispatched");
    CHECK(pthread_equal(o.thread, pthread_self()), "done ran on another thread than the dispatcher's");
    eua_op_free(op);
    /* Freed while its delivery waits in the dispatcher: done never runs. */
    memset(&o, 0, sizeof o);
    op = eua_sign_in(client, request, on_done, &o);
    for (int i = 0; i < 1000; i++) {
        sleep_ms(10);
        pthread_mutex_lock(&q.lock);
        handed = q.count;
        pthread_mutex_unlock(&q.lock);
        if (handed) break;
    }
    eua_op_free(op);
    drain(&q);
    CHECK(atomic_load(&o.calls) == 0, "done ran for an operation freed before its delivery");
    eua_client_set_dispatcher(client, NULL, NULL);
    printf("ok: the dispatcher decides where done runs; a freed operation's queued done does not run\n");

    /* The synchronous calls from inside a done on the library's own thread answer, and do not wait for themselves. */
    nested n = {.client = client};
    op = eua_get_access_token(client, "0123", NULL, on_done_nested, &n);
    for (int i = 0; i < 2000 && atomic_load(&n.calls) == 0; i++) sleep_ms(10);
    CHECK(atomic_load(&n.calls) == 1, "the done making synchronous calls did not return within 20 s");
    CHECK(!pthread_equal(n.thread, pthread_self()), "done ran on the test's thread without a dispatcher");
    CHECK(n.list_code == EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE && n.sync_code == EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE,
          "synchronous calls inside done: list %d, token %d", n.list_code, n.sync_code);
    eua_op_free(op);
    printf("ok: eua_list_accounts and eua_get_access_token_sync from inside done on the library's thread\n");

    /* eua_client_free with operations running: each done runs once, before it returns. */
    outcome many[20];
    eua_op *ops[20];
    memset(many, 0, sizeof many);
    for (int i = 0; i < 20; i++) ops[i] = eua_sign_in(client, request, on_done, &many[i]);
    eua_client_free(client);
    for (int i = 0; i < 20; i++) {
        CHECK(atomic_load(&many[i].calls) == 1, "op %d: done ran %d times by eua_client_free", i,
              atomic_load(&many[i].calls));
        eua_op_cancel(ops[i]);
        eua_op_free(ops[i]);
    }
    printf("ok: eua_client_free ends running operations once; they can be cancelled and freed afterwards\n");

    /* Many clients, made and freed. */
    for (int i = 0; i < 20; i++) {
        eua_client *c = eua_client_new("{\"connect_timeout_ms\": 5000}", NULL);
        CHECK(c != NULL, "client %d", i);
        eua_client_free(c);
    }

    /* No Swift runtime and no plugin in this process. */
    FILE *maps = fopen("/proc/self/maps", "r");
    CHECK(maps != NULL, "no /proc/self/maps");
    char line[4096];
    int lines = 0;
    while (fgets(line, sizeof line, maps)) {
        lines++;
        CHECK(strstr(line, "libswift") == NULL && strstr(line, "libFoundation") == NULL, "mapped: %s", line);
        CHECK(strstr(line, "libEUA") == NULL && strstr(line, "/eua/plugins") == NULL, "a plugin is mapped: %s", line);
    }
    fclose(maps);
    CHECK(lines > 10, "read only %d lines of /proc/self/maps", lines);
    printf("ok: /proc/self/maps (%d lines) holds no Swift runtime and no plugin\n", lines);

    /* Last, as it ends the bus: a client whose bus daemon goes away answers serviceUnavailable and frees cleanly. */
    const char *daemon = getenv("EUA_TEST_BUS_DAEMON_PID");
    CHECK(daemon && atoi(daemon) > 1, "EUA_TEST_BUS_DAEMON_PID is not set (run under tests/with-private-bus)");
    client = eua_client_new(NULL, &error);
    CHECK(client != NULL, "client_new before the bus ends");
    CHECK(kill(atoi(daemon), SIGTERM) == 0, "could not end the bus daemon %s", daemon);
    sleep_ms(300);
    memset(&o, 0, sizeof o);
    op = eua_sign_in(client, request, on_done, &o);
    CHECK(wait_done(&o) == 1 && o.code == EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE, "sign-in after the bus ended: %s (%s)",
          o.name, o.message);
    eua_op_free(op);
    error = NULL;
    CHECK(eua_list_accounts(client, &error) == NULL, "list after the bus ended");
    expect_error(error, EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE, "serviceUnavailable", "list after the bus ended");
    eua_client_free(client);
    printf("ok: the bus daemon ended: serviceUnavailable (%s), and the client frees\n", o.message);
    printf("unit: %d checks passed\n", checks);
    return 0;
}
