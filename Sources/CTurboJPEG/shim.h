/* TurboJPEG's tj* API (libjpeg-turbo 2.1: no tj3*). Paths come from pkg-config libturbojpeg. */
#include <turbojpeg.h>
