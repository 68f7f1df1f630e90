/* Status names and the library version. */
#include "imagecore.h"

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
