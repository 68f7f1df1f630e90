/* libspng's API (spng.h). Paths come from pkg-config spng. */
#include <spng.h>
