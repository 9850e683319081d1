/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* libFuzzer target for the library's JSON reader (src/json.c), which reads every request_json and options_json an
 * app passes: any bytes end in a value or a message, never a crash, a leak or a hang (the reader is linear; the
 * input is at most 1 MiB + 1 here). What it accepts holds valid UTF-8 strings without NUL, nests at most
 * EUA_JSON_MAX_DEPTH deep, and a string written by eua_json_write_string reads back as itself (the UTF-8 check
 * eua_utf8_valid, which the reader and the library use, is exercised by both).
 *   make fuzz FUZZ_SECONDS=60     (clang with -fsanitize=fuzzer,address; seeds in tests/fuzz-corpus/) */
#include "../src/json.h"

#include <stdlib.h>
#include <string.h>

static void check(const eua_json *value, int depth) {
    if (depth > EUA_JSON_MAX_DEPTH) abort();
    switch (value->kind) {
    case EUA_JSON_STRING:
        if (!eua_utf8_valid(value->string, strlen(value->string))) abort();
        break;
    case EUA_JSON_OBJECT:
        for (size_t i = 0; i < value->count; i++) {
            if (!eua_utf8_valid(value->keys[i], strlen(value->keys[i]))) abort();
            for (size_t j = 0; j < i; j++) if (strcmp(value->keys[i], value->keys[j]) == 0) abort();
        }
        /* fall through */
    case EUA_JSON_ARRAY:
        for (size_t i = 0; i < value->count; i++) check(value->items[i], depth + 1);
        break;
    default:
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > EUA_JSON_MAX_BYTES + 1) return 0;
    char *text = strndup((const char *)data, size);
    if (!text) abort();
    char *message = NULL;
    eua_json *value = eua_json_parse(text, &message);
    if (value) {
        if (message) abort();
        check(value, 0);
        eua_json_free(value);
    } else if (!message || !*message) {
        abort();
    }
    free(message);
    /* Round trip: a UTF-8 text written as a JSON string reads back as itself. */
    if (eua_utf8_valid(text, strlen(text))) {
        eua_buf out = {0};
        eua_json_write_string(&out, text);
        char *again = NULL;
        eua_json *read = eua_json_parse(out.text, &again);
        if (!read || read->kind != EUA_JSON_STRING || strcmp(read->string, text) != 0) abort();
        eua_json_free(read);
        free(again);
        eua_buf_wipe(&out);
    }
    free(text);
    return 0;
}
