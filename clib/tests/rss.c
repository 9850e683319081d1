/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* What linking the library costs an app in memory: the process's resident size (`Rss` and `Anonymous` of
 * /proc/self/smaps_rollup) and peak (VmHWM) before the library is loaded (dlopen), then after a client connects and
 * lists the accounts; then the resident KiB of each shared object mapped, the library's dependencies among them.
 *   eua-client-rss LIBRARY     prints rss_before_kib=, rss_with_client_kib=, anon_added_kib=, hwm_kib=, added_kib=,
 *                              then rss_of[FILE]=KIB per shared object */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static long field_kib(const char *file, const char *key) {
    FILE *f = fopen(file, "r");
    char line[256];
    long value = -1;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, strlen(key)) == 0) sscanf(line + strlen(key), "%ld", &value);
    }
    if (f) fclose(f);
    return value;
}

/* Prints the resident KiB of each shared object's mappings (summed), in the order they are mapped. */
static void print_objects(void) {
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[4096], name[1024] = "", last[1024] = "";
    long sum = 0, rss;
    while (f && fgets(line, sizeof line, f)) {
        char path[1024] = "";
        unsigned long start, end;
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %1023s", &start, &end, path) >= 2 && strchr(line, '-') < strchr(line, ' ')) {
            snprintf(name, sizeof name, "%s", strstr(path, ".so") ? path : "");
            continue;
        }
        if (sscanf(line, "Rss: %ld", &rss) != 1 || !*name) continue;
        if (strcmp(name, last) != 0) {
            if (*last) printf("rss_of[%s]=%ld\n", last, sum);
            snprintf(last, sizeof last, "%s", name);
            sum = 0;
        }
        sum += rss;
    }
    if (*last) printf("rss_of[%s]=%ld\n", last, sum);
    if (f) fclose(f);
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    long before = field_kib("/proc/self/smaps_rollup", "Rss:");
    long anon_before = field_kib("/proc/self/smaps_rollup", "Anonymous:");
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!library) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    void *(*client_new)(const char *, void **) = (void *(*)(const char *, void **))dlsym(library, "eua_client_new");
    char *(*list)(void *, void **) = (char *(*)(void *, void **))dlsym(library, "eua_list_accounts");
    void (*string_free)(char *) = (void (*)(char *))dlsym(library, "eua_string_free");
    void (*error_free)(void *) = (void (*)(void *))dlsym(library, "eua_error_free");
    void (*client_free)(void *) = (void (*)(void *))dlsym(library, "eua_client_free");
    void *error = NULL;
    void *client = client_new(NULL, &error);
    if (!client) { fprintf(stderr, "no client\n"); return 1; }
    char *accounts = list(client, &error);
    if (accounts) string_free(accounts);
    else error_free(error);
    long during = field_kib("/proc/self/smaps_rollup", "Rss:");
    long anon_during = field_kib("/proc/self/smaps_rollup", "Anonymous:");
    printf("rss_before_kib=%ld\nrss_with_client_kib=%ld\nanon_added_kib=%ld\nhwm_kib=%ld\nadded_kib=%ld\n", before,
           during, anon_during - anon_before, field_kib("/proc/self/status", "VmHWM:"), during - before);
    print_objects();
    client_free(client);
    return 0;
}
