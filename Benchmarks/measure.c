/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// measure: runs one command and prints what it cost, for Benchmarks/run.
//
// Usage: measure STDOUT_FILE COMMAND [ARG...]
// Prints one line: "<wall ns> <user us> <sys us> <peak RSS KiB> <exit status>", where the times and the
// peak RSS are those of the command and its waited-for children (wait4).
//
// Why not from Python: a child forked by the benchmark script starts as a copy of the Python process, and
// Linux carries that copy's peak RSS across exec, so every command measured from Python had a peak RSS of
// at least the script's own (~25-70 MiB). Forked from this small program, the floor is about 1 MiB.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: measure STDOUT_FILE COMMAND [ARG...]\n");
        return 2;
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t child = fork();
    if (child < 0) {
        perror("measure: fork");
        return 2;
    }
    if (child == 0) {
        int out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (out < 0 || null < 0 || dup2(out, 1) < 0 || dup2(null, 2) < 0) _exit(126);
        execv(argv[2], argv + 2);
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    if (wait4(child, &status, 0, &usage) < 0) {
        perror("measure: wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    long long wall = (end.tv_sec - start.tv_sec) * 1000000000LL + (end.tv_nsec - start.tv_nsec);
    long long user = usage.ru_utime.tv_sec * 1000000LL + usage.ru_utime.tv_usec;
    long long sys = usage.ru_stime.tv_sec * 1000000LL + usage.ru_stime.tv_usec;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    printf("%lld %lld %lld %ld %d\n", wall, user, sys, usage.ru_maxrss, code);
    return 0;
}
