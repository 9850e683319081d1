/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ccurl.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static struct {
    CURLcode (*global_init)(long);
    curl_version_info_data *(*version_info)(CURLversion);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    const char *(*multi_strerror)(CURLMcode);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *load_failure;
static char load_message[512];

#define LOOK_UP(field, symbol)                                                                     \
    do {                                                                                           \
        *(void **)(&curl.field) = dlsym(library, symbol);                                          \
        if (!curl.field) {                                                                         \
            snprintf(load_message, sizeof load_message,                                            \
                     "%s has no %s: libcurl 7.68 or newer is needed", name, symbol);               \
            load_failure = load_message;                                                           \
            return;                                                                                \
        }                                                                                          \
    } while (0)

static void load(void) {
    /* Never closed: a library in use by a thread must stay mapped. */
    static const char *names[] = {"libcurl.so.4", "libcurl-gnutls.so.4"};
    void *library = NULL;
    const char *name = names[0];
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !library; i++) {
        name = names[i];
        library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    }
    if (!library) {
        snprintf(load_message, sizeof load_message,
                 "libcurl could not be opened (%s); install it (Debian: apt-get install libcurl4)", dlerror());
        load_failure = load_message;
        return;
    }
    LOOK_UP(global_init, "curl_global_init");
    LOOK_UP(version_info, "curl_version_info");
    LOOK_UP(easy_init, "curl_easy_init");
    LOOK_UP(easy_cleanup, "curl_easy_cleanup");
    LOOK_UP(easy_setopt, "curl_easy_setopt");
    LOOK_UP(easy_getinfo, "curl_easy_getinfo");
    LOOK_UP(easy_strerror, "curl_easy_strerror");
    LOOK_UP(slist_append, "curl_slist_append");
    LOOK_UP(slist_free_all, "curl_slist_free_all");
    LOOK_UP(multi_init, "curl_multi_init");
    LOOK_UP(multi_cleanup, "curl_multi_cleanup");
    LOOK_UP(multi_add_handle, "curl_multi_add_handle");
    LOOK_UP(multi_remove_handle, "curl_multi_remove_handle");
    LOOK_UP(multi_perform, "curl_multi_perform");
    LOOK_UP(multi_poll, "curl_multi_poll");
    LOOK_UP(multi_info_read, "curl_multi_info_read");
    LOOK_UP(multi_strerror, "curl_multi_strerror");
    CURLcode code = curl.global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(load_message, sizeof load_message, "curl_global_init failed: %s", curl.easy_strerror(code));
        load_failure = load_message;
    }
}

const char *ccurl_load(void) {
    pthread_once(&load_once, load);
    return load_failure;
}

const char *ccurl_version(void) {
    curl_version_info_data *info = curl.version_info(CURLVERSION_NOW);
    return info && info->version ? info->version : "unknown";
}

CURL *ccurl_easy_init(void) { return curl.easy_init(); }
void ccurl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) { return curl.easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) { return curl.easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) { return curl.easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) { return curl.easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_callback(CURL *handle, CURLoption option, ccurl_data_callback callback) {
    return curl.easy_setopt(handle, option, callback);
}
CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) { return curl.easy_getinfo(handle, info, value); }
const char *ccurl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }

struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *text) { return curl.slist_append(list, text); }
void ccurl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

CURLM *ccurl_multi_init(void) { return curl.multi_init(); }
CURLMcode ccurl_multi_cleanup(CURLM *multi) { return curl.multi_cleanup(multi); }
CURLMcode ccurl_multi_add_handle(CURLM *multi, CURL *handle) { return curl.multi_add_handle(multi, handle); }
CURLMcode ccurl_multi_remove_handle(CURLM *multi, CURL *handle) { return curl.multi_remove_handle(multi, handle); }
CURLMcode ccurl_multi_perform(CURLM *multi, int *running) { return curl.multi_perform(multi, running); }

CURLMcode ccurl_multi_poll(CURLM *multi, struct pollfd *extra, unsigned int extra_count, int timeout_ms, int *ready) {
    struct curl_waitfd waits[4];
    if (extra_count > 4) extra_count = 4;
    for (unsigned int i = 0; i < extra_count; i++) {
        waits[i].fd = extra[i].fd;
        waits[i].events = CURL_WAIT_POLLIN;
        waits[i].revents = 0;
    }
    CURLMcode code = curl.multi_poll(multi, extra_count ? waits : NULL, extra_count, timeout_ms, ready);
    for (unsigned int i = 0; i < extra_count; i++) {
        extra[i].revents = (waits[i].revents & CURL_WAIT_POLLIN) ? POLLIN : 0;
    }
    return code;
}

CURLcode ccurl_multi_result(CURLM *multi, CURL *handle) {
    int left = 0;
    CURLMsg *message;
    while ((message = curl.multi_info_read(multi, &left))) {
        if (message->msg == CURLMSG_DONE && message->easy_handle == handle) return message->data.result;
    }
    return CURLE_OK;
}

const char *ccurl_multi_strerror(CURLMcode code) { return curl.multi_strerror(code); }
