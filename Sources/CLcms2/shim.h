/* Little CMS 2 (lcms2.h). Paths come from pkg-config lcms2. */
#include <lcms2.h>
