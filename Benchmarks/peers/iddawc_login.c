/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* iddawc_login: the peer of Benchmarks/service's app measure — an app in C doing its own authorization-code flow
 * with PKCE (S256) through iddawc 1.1.8 (Debian's libiddawc-dev), as an app without this project would.
 *   iddawc_login ISSUER CLIENT_ID
 * Discovery (i_get_openid_config), the authorization request sent by iddawc as a POST carrying the test provider's
 * login form field (sub=alice), so that the provider answers at once with its redirect to the app's loopback
 * redirect URI; iddawc parses that redirect (code, state) itself: the app plays the browser's part here, as the
 * headless agent does for the service. Then the token request (public client, code_verifier). Prints
 * access_token_length= and maps_swift_runtime=. */
#include <iddawc.h>
#include <stdlib.h>
#include <yder.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: iddawc_login ISSUER CLIENT_ID\n");
        return 2;
    }
    char config[1024], state[] = "bench-state-1234567890";
    snprintf(config, sizeof config, "%s/.well-known/openid-configuration", argv[1]);
    struct _i_session session;
    if (getenv("IDDAWC_DEBUG")) y_init_logs("iddawc_login", Y_LOG_MODE_CONSOLE, Y_LOG_LEVEL_DEBUG, NULL, "debug");
    if (i_global_init() != I_OK || i_init_session(&session) != I_OK) return 1;
    int result = i_set_parameter_list(&session,
        I_OPT_OPENID_CONFIG_ENDPOINT, config,
        I_OPT_RESPONSE_TYPE, I_RESPONSE_TYPE_CODE,
        I_OPT_CLIENT_ID, argv[2],
        I_OPT_REDIRECT_URI, "http://127.0.0.1:9/cb",
        I_OPT_SCOPE, "email",
        I_OPT_STATE, state,
        I_OPT_PKCE_CODE_VERIFIER_GENERATE, 43,
        I_OPT_PKCE_METHOD, I_PKCE_METHOD_S256,
        I_OPT_AUTH_METHOD, I_AUTH_METHOD_POST,
        I_OPT_TOKEN_METHOD, I_TOKEN_AUTH_METHOD_NONE,
        I_OPT_ADDITIONAL_PARAMETER, "sub", "alice",
        I_OPT_NONE);
    if (result != I_OK) {
        fprintf(stderr, "iddawc_login: the session's parameters were refused (%d)\n", result);
        return 1;
    }
    if (i_get_openid_config(&session) != I_OK) {
        fprintf(stderr, "iddawc_login: discovery failed at %s\n", config);
        return 1;
    }
    if ((result = i_run_auth_request(&session)) != I_OK || !i_get_str_parameter(&session, I_OPT_CODE)) {
        fprintf(stderr, "iddawc_login: authorization request failed (%d), redirect: %s\n", result,
                i_get_str_parameter(&session, I_OPT_REDIRECT_TO) ? i_get_str_parameter(&session, I_OPT_REDIRECT_TO) : "none");
        return 1;
    }
    if ((result = i_run_token_request(&session)) != I_OK || !i_get_str_parameter(&session, I_OPT_ACCESS_TOKEN)) {
        fprintf(stderr, "iddawc_login: token request failed (%d)\n", result);
        return 1;
    }
    printf("access_token_length=%zu\n", strlen(i_get_str_parameter(&session, I_OPT_ACCESS_TOKEN)));
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    int swift = 0;
    while (maps && fgets(line, sizeof line, maps)) swift |= strstr(line, "libswift") != NULL;
    if (maps) fclose(maps);
    printf("maps_swift_runtime=%s\n", swift ? "yes" : "no");
    i_clean_session(&session);
    i_global_close();
    return 0;
}
