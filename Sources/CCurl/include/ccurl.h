/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef CCURL_H
#define CCURL_H
/* libcurl, opened with dlopen on first use (ccurl_load) rather than linked: linking would make the dynamic
 * loader map libcurl and the ~30 libraries it needs (TLS, HTTP/2, LDAP, Kerberos...) into every process that
 * loads a plugin using it, `eua agents` included, whether or not a request is ever made. Only the header
 * (Debian: libcurl4-openssl-dev) is needed to build; the library (Debian: libcurl4) is needed to run.
 *
 * curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed function per
 * argument type stands in for each. Every function here needs a successful ccurl_load first. */
#include <curl/curl.h>
#include <poll.h>

/* Opens libcurl (libcurl.so.4, else libcurl-gnutls.so.4) and runs curl_global_init, once per process and
 * thread-safely; NULL on success, else a message saying what is missing (the same message each call). */
const char *ccurl_load(void);

/* The version string libcurl reports ("8.5.0"). */
const char *ccurl_version(void);

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);

CURL *ccurl_easy_init(void);
void ccurl_easy_cleanup(CURL *handle);
CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_setopt_callback(CURL *handle, CURLoption option, ccurl_data_callback callback);
CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value);
const char *ccurl_easy_strerror(CURLcode code);

struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *text);
void ccurl_slist_free_all(struct curl_slist *list);

CURLM *ccurl_multi_init(void);
CURLMcode ccurl_multi_cleanup(CURLM *multi);
CURLMcode ccurl_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode ccurl_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode ccurl_multi_perform(CURLM *multi, int *running);
/* curl_multi_poll, with `extra` (a stop descriptor, or NULL) among the descriptors waited on. */
CURLMcode ccurl_multi_poll(CURLM *multi, struct pollfd *extra, unsigned int extra_count, int timeout_ms, int *ready);
/* The result of the finished transfer of `handle`, read from curl_multi_info_read; CURLE_OK when none is
 * reported (the caller checks `running` first). */
CURLcode ccurl_multi_result(CURLM *multi, CURL *handle);
const char *ccurl_multi_strerror(CURLMcode code);

#endif
