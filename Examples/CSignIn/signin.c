/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* An app in C that signs in through the sign-in service with libexternaluseragent:
 *
 *   eua-signin-example ISSUER CLIENT_ID
 *
 * signs in (the host's browser opens at the provider), gets an access token twice (asynchronously, then with
 * eua_get_access_token_sync), lists the app's accounts, signs out, and lists again. It prints key=value lines and
 * never a token: only its length. Build: cc signin.c $(pkg-config --cflags --libs externaluseragent) -pthread */
#define _POSIX_C_SOURCE 200809L /* strdup, strndup */
#include <externaluseragent.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* One operation's outcome, handed from `done` (the library's thread) to main. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int finished;
    char *result;      /* a copy of result_json */
    char error[600];
} waiter;

static void on_done(void *user_data, const char *result_json, const eua_error *error) {
    waiter *w = user_data;
    pthread_mutex_lock(&w->lock);
    if (result_json) w->result = strdup(result_json);
    if (error) snprintf(w->error, sizeof w->error, "%s: %s", error->name, error->message);
    w->finished = 1;
    pthread_cond_signal(&w->changed);
    pthread_mutex_unlock(&w->lock);
}

/* Frees a copy this example made of a result, wiping it first (it may hold a token). */
static void forget(char *copy) {
    if (!copy) return;
    for (volatile char *p = copy; *p; p++) *p = 0;
    free(copy);
}

/* Waits at most `seconds` for the operation; returns its result (free with forget) or NULL. */
static char *wait_for(waiter *w, eua_op *op, int seconds, const char *what) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += seconds;
    pthread_mutex_lock(&w->lock);
    while (!w->finished) {
        if (pthread_cond_timedwait(&w->changed, &w->lock, &deadline) != 0) break;
    }
    int finished = w->finished;
    pthread_mutex_unlock(&w->lock);
    eua_op_free(op);
    if (!finished) {
        printf("%s_error=timedOut: no answer within %d s\n", what, seconds);
        return NULL;
    }
    if (!w->result) printf("%s_error=%s\n", what, w->error);
    return w->result;
}

/* The value of a top-level string member "key" of a flat JSON object this example got from the library. */
static char *member(const char *json, const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *start = strstr(json, pattern);
    if (!start) return NULL;
    start += strlen(pattern);
    const char *end = strchr(start, '"');
    return end ? strndup(start, (size_t)(end - start)) : NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s ISSUER CLIENT_ID\n", argv[0]);
        return 2;
    }
    eua_error *error = NULL;
    eua_client *client = eua_client_new(NULL, &error);
    if (!client) {
        fprintf(stderr, "%s: %s\n", error->name, error->message);
        eua_error_free(error);
        return 1;
    }

    char request[1024];
    snprintf(request, sizeof request, "{\"issuer\": \"%s\", \"client_id\": \"%s\", \"scopes\": [\"openid\", \"profile\"], "
             "\"timeout\": 120}", argv[1], argv[2]);
    waiter signin = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, NULL, ""};
    char *result = wait_for(&signin, eua_sign_in(client, request, on_done, &signin), 180, "signin");
    if (!result) return 1;
    char *account = member(result, "account"), *name = member(result, "display_name"), *subject = member(result, "subject");
    printf("signed_in_as=%s\nsubject=%s\naccount=%s\n", name ? name : "", subject ? subject : "", account ? account : "");
    forget(result);
    if (!account) return 1;

    waiter token = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, NULL, ""};
    result = wait_for(&token, eua_get_access_token(client, account, NULL, on_done, &token), 90, "token");
    if (!result) return 1;
    char *access_token = member(result, "access_token");
    printf("access_token_length=%zu\n", access_token ? strlen(access_token) : 0);
    printf("expires_at_present=%s\n", strstr(result, "\"expires_at\":") ? "yes" : "no");
    forget(access_token);
    forget(result);

    result = eua_get_access_token_sync(client, account, "{\"min_valid\": 30}", 60000, &error);
    if (!result) {
        printf("token_sync_error=%s: %s\n", error->name, error->message);
        return 1;
    }
    access_token = member(result, "access_token");
    printf("sync_access_token_length=%zu\n", access_token ? strlen(access_token) : 0);
    forget(access_token);
    eua_string_free(result);

    char *accounts = eua_list_accounts(client, &error);
    if (!accounts) {
        printf("list_error=%s: %s\n", error->name, error->message);
        return 1;
    }
    printf("listed_own_account=%s\n", strstr(accounts, account) ? "yes" : "no");
    eua_string_free(accounts);

    waiter signout = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, NULL, ""};
    result = wait_for(&signout, eua_sign_out(client, account, NULL, on_done, &signout), 150, "signout");
    if (!result) return 1;
    printf("signed_out=yes\n");
    forget(result);

    accounts = eua_list_accounts(client, &error);
    printf("listed_after_sign_out=%s\n", accounts && strstr(accounts, account) ? "yes" : "no");
    eua_string_free(accounts);

    /* What this process holds: the library and libsystemd (sd-bus), never the Swift runtime or an agent plugin. */
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    int swift = 0, plugin = 0, library = 0;
    while (maps && fgets(line, sizeof line, maps)) {
        swift |= strstr(line, "libswift") != NULL;
        plugin |= strstr(line, "libEUA") != NULL;
        library |= strstr(line, "libexternaluseragent.so") != NULL;
    }
    if (maps) fclose(maps);
    printf("maps_swift_runtime=%s\nmaps_plugin=%s\nmaps_library=%s\n", swift ? "yes" : "no", plugin ? "yes" : "no",
           library ? "yes" : "no");
    free(name);
    free(subject);
    free(account);
    eua_client_free(client);
    /* What the whole run cost this process (the browser, the receiver and the token exchange ran in the service). */
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("cpu_ms=%ld\nmax_rss_kib=%ld\n",
           (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000 + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000,
           usage.ru_maxrss);
    return 0;
}
