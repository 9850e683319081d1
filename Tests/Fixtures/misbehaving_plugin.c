/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
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
 *   DESCRIBE_HANGS  describe() never returns
 *   DESCRIBE_CRASHES  describe() dies of SIGSEGV (a plugin that takes its process with it while it is loaded)
 *   DESCRIBE_SLEEP_MS=n  describe() sleeps n milliseconds before it returns
 *   START_HANGS     start() never returns
 *   START_CRASHES   start() dies of SIGSEGV (a plugin bug that takes its process with it)
 *   CANCEL_HANGS    cancel() never returns
 *   LISTENING_URI="http://…"  start() sends {"event":"listening"} with that redirect URI, then waits
 *   REDIRECT_URL="http://…"   start() sends presented, then a redirect event with that URL, then waits
 *   FAIL_MESSAGE="…"          start() sends a "failed" event (presentationFailed) with that message (JSON content)
 *   LOG_MESSAGE="…"           the entry function logs that warning through the host's log
 * PLUGIN_ID sets the plugin and agent id (default "misbehaving"); AGENT_ID another agent id; NO_AGENT
 * offers none; RECEIVER_ID="x" also offers a receiver with that id; KIND="externalBrowser" any kind;
 * AGENT_NAME="…" the agent's name (JSON string content, so "\u001b" is an ESC);
 * AGENT_VERSION="128.0" the agent's version; UNAVAILABLE="why" marks it unavailable with that reason.
 * Unless NEVER_ANSWERS or CANCEL_HANGS, cancel() sends a "failed" (programCanceled) event when start()
 * has run and sent no terminal event yet.
 */
#include "eua_plugin.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
#ifndef AGENT_ID
#define AGENT_ID PLUGIN_ID
#endif
#ifndef AGENT_NAME
#define AGENT_NAME "Misbehaving agent"
#endif
#ifdef NO_AGENT
#define AGENTS_FIELD ""
#else
#define AGENTS_FIELD ",\"agents\":[{\"id\":\"" AGENT_ID "\",\"kind\":\"" KIND "\",\"name\":\"" AGENT_NAME "\"" \
    VERSION_FIELD AVAILABILITY_FIELD "}]"
#endif
#ifdef RECEIVER_ID
#define RECEIVERS_FIELD ",\"receivers\":[{\"id\":\"" RECEIVER_ID "\",\"name\":\"Misbehaving receiver\"}]"
#else
#define RECEIVERS_FIELD ""
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

#if defined(START_HANGS) || defined(CANCEL_HANGS) || defined(DESCRIBE_HANGS)
static void hang(void) {
    for (;;) pause();
}
#endif

static char *describe(void *context) {
    (void)context;
#if defined(DESCRIBE_HANGS)
    hang();
#elif defined(DESCRIBE_CRASHES)
    *(volatile int *)16 = 1;
#endif
#ifdef DESCRIBE_SLEEP_MS
    usleep(DESCRIBE_SLEEP_MS * 1000);
#endif
#ifdef BAD_JSON
    return strdup("this is { not json");
#else
    return strdup("{\"id\":\"" PLUGIN_ID "\",\"name\":\"Misbehaving\",\"version\":\"0.1\""
                  AGENTS_FIELD RECEIVERS_FIELD "}");
#endif
}

static void free_string(char *string) { free(string); }

static int instance_token;

static void *create(void *context, const char *id, const char *options, char **error) {
    (void)context; (void)id; (void)options; (void)error;
    return &instance_token;
}

static eua_event_fn saved_event;
static void *saved_context;
static int started __attribute__((unused)), terminal_sent __attribute__((unused));

static void start(void *instance, const char *request, eua_event_fn on_event, void *event_context) {
    (void)instance; (void)request;
    saved_event = on_event;
    saved_context = event_context;
    started = 1;
#if defined(START_HANGS)
    hang();
#elif defined(START_CRASHES)
    *(volatile int *)16 = 1; /* a real fault: a raised SIGSEGV would return from the host's handler */
#elif defined(NEVER_ANSWERS)
    (void)on_event; (void)event_context;
#elif defined(LISTENING_URI)
    on_event(event_context, "{\"event\":\"listening\",\"redirect_uri\":\"" LISTENING_URI "\"}");
#elif defined(FAIL_MESSAGE)
    on_event(event_context, "{\"event\":\"failed\",\"error\":{\"code\":\"presentationFailed\",\"message\":\"" FAIL_MESSAGE "\"}}");
    terminal_sent = 1;
#elif defined(REDIRECT_URL)
    on_event(event_context, "{\"event\":\"presented\"}");
    on_event(event_context, "{\"event\":\"redirect\",\"url\":\"" REDIRECT_URL "\"}");
#elif defined(ANSWERS_TWICE)
    on_event(event_context, "{\"event\":\"presented\"}");
    on_event(event_context, "{\"event\":\"failed\",\"error\":{\"code\":\"userCanceled\",\"message\":\"first terminal\"}}");
    on_event(event_context, "{\"event\":\"finished\"}");
    on_event(event_context, "{\"event\":\"redirect\",\"url\":\"http://127.0.0.1:1/late\"}");
    terminal_sent = 1;
#else
    on_event(event_context, "{\"event\":\"presented\"}");
    on_event(event_context, "{\"event\":\"finished\"}");
    terminal_sent = 1;
#endif
}

static void cancel(void *instance) {
    (void)instance;
#if defined(CANCEL_HANGS)
    hang();
#elif !defined(NEVER_ANSWERS)
    if (started && !terminal_sent) {
        terminal_sent = 1;
        saved_event(saved_context,
                    "{\"event\":\"failed\",\"error\":{\"code\":\"programCanceled\",\"message\":\"cancelled\"}}");
    }
#endif
}

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
#if defined(LOG_MESSAGE)
    host->log(host->context, EUA_LOG_WARNING, LOG_MESSAGE);
#endif
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
