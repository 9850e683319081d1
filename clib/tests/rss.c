/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* What linking the library costs an app in memory: the process's resident size (VmRSS) and peak (VmHWM) before the
 * library is loaded (dlopen), then after a client connects, lists the accounts and is freed.
 *   eua-client-rss LIBRARY     prints rss_before_kib=, rss_after_kib=, hwm_after_kib=, added_kib= */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static long status_kib(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long value = -1;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, strlen(key)) == 0) sscanf(line + strlen(key), "%ld", &value);
    }
    if (f) fclose(f);
    return value;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    long before = status_kib("VmRSS:");
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
    long during = status_kib("VmRSS:");
    client_free(client);
    printf("rss_before_kib=%ld\nrss_with_client_kib=%ld\nhwm_kib=%ld\nadded_kib=%ld\n", before, during,
           status_kib("VmHWM:"), during - before);
    return 0;
}
