/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* The callback rules against the real sign-in service, built with AddressSanitizer (make: build/asan/eua-client-stress):
 *
 *   eua-client-stress ISSUER SLOW_ISSUER CLIENT_ID
 *
 * SLOW_ISSUER's token endpoint answers late, so its sign-ins stay in flight. Checks: a sign-in cancelled from another
 * thread and one cancelled from inside another operation's done end in programCanceled, once; a sign-in freed while
 * running never calls done; 100 sign-ins started at once from one client each end exactly once (signed in, or
 * notAllowed beyond the service's 4 per caller). Prints key=value lines; exits 1 at the first broken rule. */
#include "externaluseragent.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PARALLEL 100

typedef struct {
    atomic_int calls;
    atomic_int code;       /* 0: success */
    _Atomic(eua_op *) cancel_other;
    _Atomic(eua_op *) self;
} outcome;

static void sleep_ms(int ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void on_done(void *user_data, const char *result_json, const eua_error *error) {
    outcome *o = user_data;
    atomic_store(&o->code, error ? error->code : 0);
    if (!error && (!result_json || !strstr(result_json, "\"account\":"))) atomic_store(&o->code, -1);
    eua_op *other = atomic_load(&o->cancel_other);
    if (other) eua_op_cancel(other);
    eua_op *self = atomic_load(&o->self);
    if (self) eua_op_cancel(self);
    atomic_fetch_add(&o->calls, 1);
}

static void fail(const char *what) {
    printf("failed=%s\n", what);
    fflush(stdout);
    exit(1);
}

/* Waits up to `seconds` for a first call. */
static void wait_calls(outcome *o, int seconds) {
    for (int i = 0; i < seconds * 100 && atomic_load(&o->calls) == 0; i++) sleep_ms(10);
}

static void *cancel_thread(void *op) {
    eua_op_cancel(op);
    eua_op_cancel(op);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s ISSUER SLOW_ISSUER CLIENT_ID\n", argv[0]);
        return 2;
    }
    char fast[1024], slow[1024];
    snprintf(fast, sizeof fast, "{\"issuer\": \"%s\", \"client_id\": \"%s\", \"timeout\": 120}", argv[1], argv[3]);
    snprintf(slow, sizeof slow, "{\"issuer\": \"%s\", \"client_id\": \"%s\", \"timeout\": 120}", argv[2], argv[3]);
    eua_error *error = NULL;
    eua_client *client = eua_client_new(NULL, &error);
    if (!client) {
        printf("client_error=%s: %s\n", error->name, error->message);
        return 1;
    }

    /* Cancelled from another thread while the service waits for the provider. */
    outcome a = {0};
    eua_op *op = eua_sign_in(client, slow, on_done, &a);
    sleep_ms(1500);
    if (atomic_load(&a.calls) != 0) fail("cancel_thread: the slow sign-in ended early");
    pthread_t thread;
    pthread_create(&thread, NULL, cancel_thread, op);
    pthread_join(thread, NULL);
    wait_calls(&a, 10);
    sleep_ms(300);
    printf("cancel_thread_calls=%d\ncancel_thread_code=%d\n", atomic_load(&a.calls), atomic_load(&a.code));
    if (atomic_load(&a.calls) != 1 || atomic_load(&a.code) != EUA_CLIENT_ERROR_PROGRAM_CANCELED) fail("cancel_thread");
    eua_op_free(op);

    /* Cancelled from inside another operation's done (which also cancels itself: no effect). */
    outcome b = {0}, c = {0};
    eua_op *slow_op = eua_sign_in(client, slow, on_done, &b);
    sleep_ms(1000);
    atomic_store(&c.cancel_other, slow_op);
    eua_op *quick = eua_get_access_token(client, "0123456789abcdef0123456789abcdef", NULL, on_done, &c);
    atomic_store(&c.self, quick);
    wait_calls(&c, 30);
    wait_calls(&b, 10);
    sleep_ms(300);
    printf("cancel_in_done_calls=%d\ncancel_in_done_code=%d\nquick_code=%d\n", atomic_load(&b.calls),
           atomic_load(&b.code), atomic_load(&c.code));
    if (atomic_load(&b.calls) != 1 || atomic_load(&b.code) != EUA_CLIENT_ERROR_PROGRAM_CANCELED) fail("cancel_in_done");
    if (atomic_load(&c.calls) != 1 || atomic_load(&c.code) != EUA_CLIENT_ERROR_NOT_FOUND) fail("quick_not_found");
    eua_op_free(slow_op);
    eua_op_free(quick);

    /* Freed while running: done never runs. */
    outcome d = {0};
    op = eua_sign_in(client, slow, on_done, &d);
    sleep_ms(1000);
    eua_op_free(op);
    sleep_ms(2000);
    printf("freed_calls=%d\n", atomic_load(&d.calls));
    if (atomic_load(&d.calls) != 0) fail("free_while_running");

    /* 100 at once. */
    static outcome many[PARALLEL];
    eua_op *ops[PARALLEL];
    for (int i = 0; i < PARALLEL; i++) ops[i] = eua_sign_in(client, fast, on_done, &many[i]);
    int ended = 0;
    for (int tries = 0; tries < 1800 && ended < PARALLEL; tries++) {
        sleep_ms(100);
        ended = 0;
        for (int i = 0; i < PARALLEL; i++) ended += atomic_load(&many[i].calls) > 0;
    }
    sleep_ms(500);
    int signed_in = 0, refused = 0, other = 0, twice = 0;
    for (int i = 0; i < PARALLEL; i++) {
        int calls = atomic_load(&many[i].calls), code = atomic_load(&many[i].code);
        if (calls > 1) twice++;
        if (calls == 0) continue;
        if (code == 0) signed_in++;
        else if (code == EUA_CLIENT_ERROR_NOT_ALLOWED) refused++;
        else other++;
    }
    printf("parallel_ended=%d\nparallel_signed_in=%d\nparallel_not_allowed=%d\nparallel_other=%d\nparallel_twice=%d\n",
           ended, signed_in, refused, other, twice);
    for (int i = 0; i < PARALLEL; i++) eua_op_free(ops[i]);
    if (ended != PARALLEL || twice || other || signed_in < 1) fail("parallel");

    char *accounts = eua_list_accounts(client, &error);
    if (!accounts) fail("list");
    printf("accounts_listed=%s\n", strstr(accounts, "\"account\":") ? "yes" : "no");
    eua_string_free(accounts);
    eua_client_free(client);
    printf("stress=ok\n");
    return 0;
}
