// eua: the command-line entry point, a few lines of C on purpose.
//
// The commands live in Swift programs beside this one: eua-oauth (explain, login, refresh, doctor,
// userinfo, register, accounts, token: the OAuth client, TLS), eua-demo (demo: the OAuth client and the
// testing kit's local authorization server) and eua-core (everything else: agents, capabilities, open, receive, and
// the help that lists all commands). It was written when a Swift program paid several milliseconds of
// dynamic linking before main (the runtime, FoundationEssentials); choosing in C costs well under one, so
// no command paid that start-up twice. Since the release commands hold the runtime (scripts/link-static), a
// Swift program starts in about 2 ms and this exec costs a login 0.36 ms: one program for every command is the
// next step (Benchmarks/README.md, "Session 11"). Keep the list below in step with OAuthCommands.swift.
//
// It is linked as a static executable (Package.swift) with no Swift runtime: a dynamic one paid the
// dynamic loader and libswiftCore (below) before choosing, 2.0 ms of CPU per command against 0.6 ms
// (Benchmarks/README.md, "Levers").
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const oauth_commands[] = {"explain", "login", "refresh", "demo", "doctor", "userinfo", "register",
                                             "logout", "accounts", "token", NULL};

static int is_oauth_command(const char *name) {
    for (const char *const *command = oauth_commands; name && *command; command++) {
        if (strcmp(name, *command) == 0) return 1;
    }
    return 0;
}

#ifdef __linux__
// swiftc links every executable with swiftrt.o, whose constructor registers the image with the Swift
// runtime. There is no Swift here: these two stand in, so neither libswiftCore.so is loaded at start
// nor libswiftCore.a linked into the static executable.
void swift_addNewDSOImage(const void *sections) { (void)sections; }
int _swift_backtrace_isThunkFunction(const char *name) {
    (void)name;
    return 0;
}
#endif

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : NULL;
    if (name && strcmp(name, "help") == 0 && argc > 2) name = argv[2];
    const char *program = !is_oauth_command(name) ? "eua-core" : strcmp(name, "demo") == 0 ? "eua-demo" : "eua-oauth";

    // <prefix>/lib/eua/ for <prefix>/bin/eua (an installed tree), else beside this program (a build folder; the
    // path named below when neither is there).
    char self[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    char path[PATH_MAX + 32];
    if (length > 0) {
        self[length] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) *slash = '\0';
        snprintf(path, sizeof path, "%s/../lib/eua/%s", self, program);
        if (access(path, X_OK) != 0) snprintf(path, sizeof path, "%s/%s", self, program);
    } else {
        snprintf(path, sizeof path, "%s", program);
    }
    execv(path, argv);
    fprintf(stderr,
            "eua: '%s' is run by %s, which could not be started (%s); install %s beside eua or in "
            "<prefix>/lib/eua/ (swift build puts eua, eua-core, eua-oauth and eua-demo together in .build/<configuration>/; "
            "scripts/install puts eua in <prefix>/bin and the others in <prefix>/lib/eua)\n",
            name ? name : "eua", path, strerror(errno), program);
    return 127;
}
