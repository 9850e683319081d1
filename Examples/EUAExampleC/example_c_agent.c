/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * An ExternalUserAgent plugin written in plain C against eua_plugin.h only.
 *
 * It offers one agent, "example-c" (kind testDouble): on start it acts like an
 * authorization server that approves at once, and hands the redirect
 * (redirect_uri?code=...&state=<the request's state>) straight to the session
 * from a thread of its own. Copy it as the skeleton of a C plugin.
 */
#define _GNU_SOURCE
#include "example_c_agent.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const eua_host_table *host_table;

static void host_log(int32_t level, const char *message) {
    if (host_table && host_table->struct_size >= sizeof(eua_host_table) && host_table->log)
        host_table->log(host_table->context, level, message);
}

/* One agent instance. */
typedef struct example_agent {
    pthread_mutex_t lock;
    pthread_t thread;
    int has_thread;
    char *url;
    char *redirect_uri;
    eua_event_fn on_event;
    void *event_context;
} example_agent;

static char *describe(void *plugin_context) {
    (void)plugin_context;
    return strdup("{\"id\":\"example-c\",\"name\":\"Example plugin in C\",\"version\":\"1.0.0\","
                  "\"agents\":[{\"id\":\"example-c\",\"kind\":\"testDouble\","
                  "\"name\":\"Example C agent (approves at once)\",\"version\":\"1.0.0\",\"available\":true}],"
                  "\"receivers\":[]}");
}

static void free_string(char *string) { free(string); }

static void *create(void *plugin_context, const char *component_id, const char *options_json, char **error_json) {
    (void)plugin_context;
    if (strcmp(component_id, "example-c") != 0) {
        *error_json = strdup("{\"code\":\"invalidOptions\",\"message\":\"this plugin offers only 'example-c'\"}");
        return NULL;
    }
    if (options_json && strcmp(options_json, "{}") != 0) {
        *error_json = strdup("{\"code\":\"invalidOptions\",\"message\":\"the example C agent takes no options\"}");
        return NULL;
    }
    example_agent *agent = calloc(1, sizeof *agent);
    if (!agent) return NULL;
    pthread_mutex_init(&agent->lock, NULL);
    return agent;
}

/* The string value of "key" in a flat JSON object, unescaped; NULL when absent. */
static char *json_string(const char *json, const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *at = strstr(json, pattern);
    if (!at) return NULL;
    at += strlen(pattern);
    char *out = malloc(strlen(at) + 1), *o = out;
    if (!out) return NULL;
    for (; *at && *at != '"'; at++) {
        if (*at == '\\' && at[1]) {
            at++;
            switch (*at) {
            case 'n': *o++ = '\n'; break;
            case 't': *o++ = '\t'; break;
            default: *o++ = *at; break; /* \" \\ \/ */
            }
        } else {
            *o++ = *at;
        }
    }
    *o = '\0';
    return out;
}

/* The raw value of query parameter `name` in `url` (up to '&' or '#'); NULL when absent. */
static char *query_value(const char *url, const char *name) {
    const char *query = strchr(url, '?');
    size_t length = strlen(name);
    for (const char *p = query; p; p = strchr(p + 1, '&')) {
        if (strncmp(p + 1, name, length) == 0 && p[1 + length] == '=') {
            const char *value = p + 2 + length;
            return strndup(value, strcspn(value, "&#"));
        }
    }
    return NULL;
}

static void send_event(example_agent *agent, const char *json) { agent->on_event(agent->event_context, json); }

static void *run(void *argument) {
    example_agent *agent = argument;
    send_event(agent, "{\"event\":\"presented\"}");
    char *state = query_value(agent->url, "state");
    unsigned char bytes[16];
    FILE *random = fopen("/dev/urandom", "rb");
    size_t got = random ? fread(bytes, 1, sizeof bytes, random) : 0;
    if (random) fclose(random);
    char code[2 * sizeof bytes + 1] = "";
    for (size_t i = 0; i < got; i++) sprintf(code + 2 * i, "%02x", bytes[i]);

    const char *separator = strchr(agent->redirect_uri, '?') ? "&" : "?";
    char *event = NULL;
    if (asprintf(&event, "{\"event\":\"redirect\",\"url\":\"%s%scode=%s%s%s\"}", agent->redirect_uri, separator,
                 code, state ? "&state=" : "", state ? state : "") > 0) {
        send_event(agent, event);
        free(event);
    }
    free(state);
    host_log(EUA_LOG_DEBUG, "example C agent delivered its redirect");
    send_event(agent, "{\"event\":\"finished\"}");
    return NULL;
}

/* A terminal "failed" event with `code` by its wire name; `message` is fixed text (nothing to escape). */
static void send_failure(eua_event_fn on_event, void *event_context, eua_error_code code, const char *message) {
    char event[256];
    snprintf(event, sizeof event, "{\"event\":\"failed\",\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}",
             eua_error_code_name(code), message);
    on_event(event_context, event);
}

static void start(void *instance, const char *request_json, eua_event_fn on_event, void *event_context) {
    example_agent *agent = instance;
    agent->on_event = on_event;
    agent->event_context = event_context;
    agent->url = json_string(request_json, "url");
    agent->redirect_uri = json_string(request_json, "redirect_uri");
    if (!agent->url || !agent->redirect_uri) {
        send_failure(on_event, event_context, EUA_ERROR_PRESENTATION_FAILED,
                     "example C agent: the request lacks url or redirect_uri");
        return;
    }
    pthread_mutex_lock(&agent->lock);
    agent->has_thread = pthread_create(&agent->thread, NULL, run, agent) == 0;
    pthread_mutex_unlock(&agent->lock);
    if (!agent->has_thread)
        send_failure(on_event, event_context, EUA_ERROR_PRESENTATION_FAILED, "example C agent: could not start a thread");
}

/* Its work is over in microseconds, so there is nothing to stop early. */
static void cancel(void *instance) { (void)instance; }

static void destroy(void *instance) {
    example_agent *agent = instance;
    pthread_mutex_lock(&agent->lock);
    if (agent->has_thread) pthread_join(agent->thread, NULL);
    pthread_mutex_unlock(&agent->lock);
    pthread_mutex_destroy(&agent->lock);
    free(agent->url);
    free(agent->redirect_uri);
    free(agent);
}

static const eua_plugin_table table = {
    .abi_version = EUA_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(eua_plugin_table),
    .context = NULL,
    .describe = describe,
    .free_string = free_string,
    .create = create,
    .start = start,
    .cancel = cancel,
    .destroy = destroy,
};

EUA_PLUGIN_EXPORT
const eua_plugin_table *eua_plugin_entry_v1(const eua_host_table *host) {
    if (!host || host->abi_version != EUA_PLUGIN_ABI_VERSION) return NULL;
    host_table = host;
    return &table;
}
