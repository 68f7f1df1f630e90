#!/usr/bin/env bash
# Installs the Debian packages ImageCore needs, if any are missing (`make deps`).
# As root it uses apt-get directly, otherwise sudo. On macOS it prints the Homebrew line.
# libgs-common: the tests' real CMYK ICC profile (Ghostscript's default_cmyk.icc, 317 KB, no
# dependencies); the library does not use it.
set -euo pipefail
packages=(libturbojpeg0-dev libjpeg62-turbo-dev libspng-dev liblcms2-dev libomp-dev cmake pkg-config parallel strace libgs-common "$@")

if [[ "$(uname -s)" == Darwin ]]; then
    echo "macOS: install the dependencies with: brew install jpeg-turbo libspng little-cms2 libomp cmake pkg-config"
    exit 0
fi
if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps: not a Debian-like system; install libjpeg-turbo (with TurboJPEG), libspng, Little CMS 2, an OpenMP runtime, cmake and pkg-config yourself" >&2
    exit 0
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0
echo "deps: installing ${missing[*]}"
sudo=""
[[ "$(id -u)" -ne 0 ]] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# Another apt (a second make target run beside this one, the system's updater) may hold apt's
# locks: wait for it rather than fail the build. install waits for dpkg's lock itself
# (DPkg::Lock::Timeout); update takes the package lists' lock without waiting, so it is retried.
apt_get() {
    local err i
    err=$(mktemp)
    for i in $(seq 1 60); do
        if $sudo apt-get -o DPkg::Lock::Timeout=600 "$@" 2>"$err"; then rm -f "$err"; return 0; fi
        grep -q "Could not get lock" "$err" || break
        sleep 10
    done
    cat "$err" >&2
    rm -f "$err"
    return 1
}
apt_get update -qq
apt_get install -y -qq --no-install-recommends "${missing[@]}"
