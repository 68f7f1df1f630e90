/* Runs a command once as a whole process and prints "wall_ms peak_rss_kib status": the wall
 * time from fork to reap and the child's peak RSS from wait4. This launcher is small, so
 * the child's peak counts at most the launcher's own ~1 MiB before exec (a big parent's
 * high-water mark would otherwise be inherited through fork and exec).
 *   proc_run [-t SECONDS] [-o FILE] [-e FILE] COMMAND [ARG...]
 * -t kills the command (SIGKILL) after SECONDS; its status is then 128 + 9. -o / -e send its
 * stdout / stderr to FILE (default /dev/null). Status: the exit code, or 128 + signal. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    double limit = 0;
    const char *out = "/dev/null", *err = "/dev/null";
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "-t")) limit = atof(argv[i + 1]) * 1e3;
        else if (!strcmp(argv[i], "-o")) out = argv[i + 1];
        else if (!strcmp(argv[i], "-e")) err = argv[i + 1];
        else break;
    }
    if (i >= argc) { fprintf(stderr, "usage: %s [-t SECONDS] [-o FILE] [-e FILE] COMMAND [ARG...]\n", argv[0]); return 2; }
    double start = now_ms();
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 1; }
    if (pid == 0) {
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int in = open("/dev/null", O_RDONLY);
        if (o < 0 || e < 0 || in < 0) _exit(126);
        dup2(in, 0); dup2(o, 1); dup2(e, 2);
        execvp(argv[i], argv + i);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    for (;;) {
        pid_t r = wait4(pid, &status, limit > 0 ? WNOHANG : 0, &ru);
        if (r == pid) break;
        if (r < 0) { perror("wait4"); return 1; }
        if (now_ms() - start > limit) kill(pid, SIGKILL);
        usleep(2000);
    }
    printf("%.3f %ld %d\n", now_ms() - start, ru.ru_maxrss,
           WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return 0;
}
