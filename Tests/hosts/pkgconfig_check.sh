#!/bin/sh
# Builds host_c.c with nothing but what the installed imagecore.pc says: once against the
# shared library, once against libimagecore.a (exercising Libs.private / Requires.private).
# usage: pkgconfig_check.sh PC_DIR HOST_C OUT_DIR [CC]
set -eu
PKG_CONFIG_PATH=$1
export PKG_CONFIG_PATH
src=$2 out=$3 cc=${4:-cc}
libdir=$(pkg-config --variable=libdir imagecore)

set -x
"$cc" -std=c99 -o "$out/host_c_pc" "$src" $(pkg-config --cflags --libs imagecore) -Wl,-rpath,"$libdir"
"$out/host_c_pc"

static_libs=$(pkg-config --static --libs imagecore | sed 's/-limagecore\( \|$\)/ /')
"$cc" -std=c99 -o "$out/host_c_pc_static" "$src" $(pkg-config --cflags imagecore) \
    "$libdir/libimagecore.a" $static_libs
if ldd "$out/host_c_pc_static" | grep -q libimagecore; then
    echo "host_c_pc_static: linked the shared library" >&2
    exit 1
fi
"$out/host_c_pc_static"
