/*
 * A plugin that breaks one rule of the ABI, chosen at compile time, for the loader's tests.
 * Built by the tests with the C compiler into a temporary folder:
 *   NO_ENTRY        exports no entry symbol at all
 *   ENTRY_V2        exports only eua_plugin_entry_v2 (a future major version)
 *   WRONG_ABI       entry v1, but the table says abi_version 2
 *   SMALL_TABLE     struct_size covers only the header
 *   NULL_ENTRY      the entry returns NULL
 *   BAD_JSON        describe() returns text that is not JSON
 *   NEVER_ANSWERS   start() and cancel() never send an event
 *   ANSWERS_TWICE   start() sends presented, finished, then finished again and another event
 *   EMBEDDED        offers an agent of kind embeddedWebView
 * PLUGIN_ID sets the plugin and agent id (default "misbehaving"); KIND="externalBrowser" any kind;
 * AGENT_VERSION="128.0" the agent's version; UNAVAILABLE="why" marks it unavailable with that reason.
 */
#include "eua_plugin.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PLUGIN_ID
#define PLUGIN_ID "misbehaving"
#endif
#ifndef KIND
#ifdef EMBEDDED
#define KIND "embeddedWebView"
#else
#define KIND "testDouble"
#endif
#endif
#ifdef AGENT_VERSION
#define VERSION_FIELD ",\"version\":\"" AGENT_VERSION "\""
#else
#define VERSION_FIELD ""
#endif
#ifdef UNAVAILABLE
#define AVAILABILITY_FIELD ",\"available\":false,\"reasons\":[\"" UNAVAILABLE "\"]"
#else
#define AVAILABILITY_FIELD ""
#endif

static char *describe(void *context) {
    (void)context;
#ifdef BAD_JSON
    return strdup("this is { not json");
#else
    return strdup("{\"id\":\"" PLUGIN_ID "\",\"name\":\"Misbehaving\",\"version\":\"0.1\","
                  "\"agents\":[{\"id\":\"" PLUGIN_ID "\",\"kind\":\"" KIND "\",\"name\":\"Misbehaving agent\""
                  VERSION_FIELD AVAILABILITY_FIELD "}]}");
#endif
}

static void free_string(char *string) { free(string); }

static int instance_token;

static void *create(void *context, const char *id, const char *options, char **error) {
    (void)context; (void)id; (void)options; (void)error;
    return &instance_token;
}

static void start(void *instance, const char *request, eua_event_fn on_event, void *event_context) {
    (void)instance; (void)request;
#if defined(NEVER_ANSWERS)
    (void)on_event; (void)event_context;
#elif defined(ANSWERS_TWICE)
    on_event(event_context, "{\"event\":\"presented\"}");
    on_event(event_context, "{\"event\":\"failed\",\"error\":{\"code\":\"userCanceled\",\"message\":\"first terminal\"}}");
    on_event(event_context, "{\"event\":\"finished\"}");
    on_event(event_context, "{\"event\":\"redirect\",\"url\":\"http://127.0.0.1:1/late\"}");
#else
    on_event(event_context, "{\"event\":\"presented\"}");
    on_event(event_context, "{\"event\":\"finished\"}");
#endif
}

static void cancel(void *instance) { (void)instance; }
static void destroy(void *instance) { (void)instance; }

static eua_plugin_table table = {
    .abi_version = EUA_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(eua_plugin_table),
    .describe = describe,
    .free_string = free_string,
    .create = create,
    .start = start,
    .cancel = cancel,
    .destroy = destroy,
};

#if defined(NO_ENTRY)
int not_a_plugin(void) { return 42; }
#elif defined(ENTRY_V2)
__attribute__((visibility("default"))) const eua_plugin_table *eua_plugin_entry_v2(const eua_host_table *host) {
    (void)host;
    return &table;
}
#else
__attribute__((visibility("default"))) const eua_plugin_table *eua_plugin_entry_v1(const eua_host_table *host) {
    (void)host;
#if defined(NULL_ENTRY)
    return NULL;
#endif
#if defined(WRONG_ABI)
    table.abi_version = 2;
#endif
#if defined(SMALL_TABLE)
    table.struct_size = 8;
#endif
    return &table;
}
#endif
