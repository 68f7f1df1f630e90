/* libjpeg's API (jpeglib.h needs stdio.h first). Paths come from pkg-config libjpeg. */
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
