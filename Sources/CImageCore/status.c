/* Status names, the per-thread detail of the last refusal, and the library version. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *ic_status_string(ic_status status) {
    switch (status) {
    case IC_OK: return "ok";
    case IC_ERR_INVALID_ARGUMENT: return "invalid argument";
    case IC_ERR_UNSUPPORTED: return "unsupported";
    case IC_ERR_CORRUPT_DATA: return "corrupt data";
    case IC_ERR_TOO_LARGE: return "too large";
    case IC_ERR_OUT_OF_MEMORY: return "out of memory";
    case IC_ERR_CANCELLED: return "cancelled";
    case IC_ERR_BUFFER_TOO_SMALL: return "buffer too small";
    case IC_ERR_IO: return "i/o error";
    case IC_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

/* The last refusal on this thread: what was wrong, for the caller's error message. */
static __thread struct {
    ic_status status;
    char text[IC_DETAIL_LENGTH];
} g_last;

ic_status ic__refuse(ic_status status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(g_last.text, sizeof g_last.text, format, args);
    va_end(args);
    g_last.status = status;
    return status;
}

ic_status ic_last_error(char *detail, size_t capacity) {
    const ic_status st = g_last.status;
    if (detail && capacity) {
        size_t n = st == IC_OK ? 0 : strlen(g_last.text);
        if (n >= capacity) n = capacity - 1;
        memcpy(detail, g_last.text, n);
        detail[n] = '\0';
    }
    g_last.status = IC_OK;
    g_last.text[0] = '\0';
    return st;
}

#define IC_VERSION_MAJOR 0
#define IC_VERSION_MINOR 1
#define IC_VERSION_PATCH 0
#define IC_STR2(x) #x
#define IC_STR(x) IC_STR2(x)

uint32_t ic_version(void) {
    return IC_VERSION_MAJOR * 10000u + IC_VERSION_MINOR * 100u + IC_VERSION_PATCH;
}

const char *ic_version_string(void) {
    return IC_STR(IC_VERSION_MAJOR) "." IC_STR(IC_VERSION_MINOR) "." IC_STR(IC_VERSION_PATCH);
}
