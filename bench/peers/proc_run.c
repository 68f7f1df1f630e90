/* Runs a command once as a whole process and prints "wall_ms peak_rss_kib status": the wall
 * time from fork to reap and the child's peak RSS from wait4 (this launcher is small, so the
 * child's peak counts at most the launcher's ~1 MiB before exec). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s COMMAND [ARG...]\n", argv[0]); return 2; }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1); dup2(fd, 2);
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int status; struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) return 1;
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.3f %ld %d\n", (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6, ru.ru_maxrss,
           WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return 0;
}
