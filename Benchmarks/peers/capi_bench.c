/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* capi_bench: the C client library (clib/) as an app uses it, for Benchmarks/service.
 *   capi_bench signin ISSUER CLIENT_ID   sign in (the service's agent), one eua_get_access_token_sync; prints
 *                                        account=, maps_swift_runtime=, maps_plugin=, maps_library=
 *   capi_bench token ACCOUNT             one eua_get_access_token_sync (a whole process: measured by `measure`)
 *   capi_bench loop ACCOUNT N            one warm-up call, then N timed calls; prints one JSON line:
 *                                        {"p50_us","p99_us","calls","cpu_us_per_call"}
 * Built with -DBASELINE it is the same program that links nothing of ours and returns at once: the peak RSS an app
 * has without the library, subtracted to give what linking and using it adds. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef BASELINE
#include <externaluseragent.h>
#include <pthread.h>
#include <sys/resource.h>
#include <time.h>

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int finished;
    char *result;
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

static char *member(const char *json, const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *start = strstr(json, pattern);
    if (!start) return NULL;
    start += strlen(pattern);
    const char *end = strchr(start, '"');
    return end ? strndup(start, (size_t)(end - start)) : NULL;
}

static int token(eua_client *client, const char *account) {
    eua_error *error = NULL;
    char *result = eua_get_access_token_sync(client, account, NULL, 30000, &error);
    if (!result) {
        fprintf(stderr, "capi_bench: GetAccessToken failed: %s: %s\n", error->name, error->message);
        eua_error_free(error);
        return 0;
    }
    int ok = strstr(result, "\"access_token\":\"") != NULL;
    eua_string_free(result);
    return ok;
}

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long cpu_us(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000000LL + u.ru_utime.tv_usec + u.ru_stime.tv_usec;
}

static int compare(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: capi_bench signin ISSUER CLIENT_ID | token ACCOUNT | loop ACCOUNT N\n");
        return 2;
    }
    eua_error *error = NULL;
    eua_client *client = eua_client_new(NULL, &error);
    if (!client) {
        fprintf(stderr, "capi_bench: %s: %s\n", error->name, error->message);
        return 1;
    }
    int status = 0;
    if (strcmp(argv[1], "signin") == 0 && argc == 4) {
        char request[1024];
        snprintf(request, sizeof request, "{\"issuer\": \"%s\", \"client_id\": \"%s\", \"scopes\": [\"openid\", "
                 "\"email\"], \"timeout\": 60}", argv[2], argv[3]);
        waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, NULL, ""};
        eua_op *op = eua_sign_in(client, request, on_done, &w);
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += 90;
        pthread_mutex_lock(&w.lock);
        while (!w.finished && pthread_cond_timedwait(&w.changed, &w.lock, &deadline) == 0) {}
        pthread_mutex_unlock(&w.lock);
        eua_op_free(op);
        char *account = w.result ? member(w.result, "account") : NULL;
        if (!account) {
            fprintf(stderr, "capi_bench: sign-in failed: %s\n", w.finished ? w.error : "no answer within 90 s");
            return 1;
        }
        printf("account=%s\n", account);
        status = token(client, account) ? 0 : 1;
        FILE *maps = fopen("/proc/self/maps", "r");
        char line[4096];
        int swift = 0, plugin = 0, library = 0;
        while (maps && fgets(line, sizeof line, maps)) {
            swift |= strstr(line, "libswift") != NULL || strstr(line, "libeua-swift") != NULL;
            plugin |= strstr(line, "libEUA") != NULL;
            library |= strstr(line, "libexternaluseragent.so") != NULL;
        }
        if (maps) fclose(maps);
        printf("maps_swift_runtime=%s\nmaps_plugin=%s\nmaps_library=%s\n", swift ? "yes" : "no",
               plugin ? "yes" : "no", library ? "yes" : "no");
        /* Of the resident memory: anonymous (the process's own) and file-backed (libraries' pages, which every
         * process that maps the same libraries shares). */
        FILE *status_file = fopen("/proc/self/status", "r");
        while (status_file && fgets(line, sizeof line, status_file)) {
            long kib;
            if (sscanf(line, "RssAnon: %ld", &kib) == 1) printf("rss_anon_kib=%ld\n", kib);
            if (sscanf(line, "RssFile: %ld", &kib) == 1) printf("rss_file_kib=%ld\n", kib);
        }
        if (status_file) fclose(status_file);
        free(w.result);
        free(account);
    } else if (strcmp(argv[1], "token") == 0) {
        status = token(client, argv[2]) ? 0 : 1;
    } else if (strcmp(argv[1], "loop") == 0 && argc == 4) {
        long calls = strtol(argv[3], NULL, 10);
        if (calls < 1 || calls > 1000000) {
            fprintf(stderr, "capi_bench: N must be 1…1000000, not %s\n", argv[3]);
            return 2;
        }
        long long *samples = calloc((size_t)calls, sizeof *samples);
        if (!samples || !token(client, argv[2])) return 1;
        long long cpu_before = cpu_us();
        for (long i = 0; i < calls; i++) {
            long long start = now_ns();
            if (!token(client, argv[2])) return 1;
            samples[i] = now_ns() - start;
        }
        long long cpu = cpu_us() - cpu_before;
        qsort(samples, (size_t)calls, sizeof *samples, compare);
        printf("{\"p50_us\": %.1f, \"p99_us\": %.1f, \"calls\": %ld, \"cpu_us_per_call\": %.1f}\n",
               samples[calls / 2] / 1e3, samples[(calls * 99) / 100 < calls ? (calls * 99) / 100 : calls - 1] / 1e3,
               calls, (double)cpu / (double)calls);
        free(samples);
    } else {
        fprintf(stderr, "capi_bench: unknown mode %s\n", argv[1]);
        status = 2;
    }
    eua_client_free(client);
    return status;
}
#else
int main(void) { return 0; }
#endif
