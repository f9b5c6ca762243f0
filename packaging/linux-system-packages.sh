#!/bin/sh
# System packages a Linux desktop needs for Domain Drafter's Qt window, plus Xvfb for the
# display test. Debian/Ubuntu (apt-get) only; run as root. Elsewhere it prints what to install
# and exits 0, so `make test` goes on (the tests that need these packages then say what is missing).
#
# Qt's xcb platform plugin (PySide6) loads these X11 libraries at start; without them the app
# aborts with "Could not load the Qt platform plugin xcb".
set -u

XCB_PACKAGES="libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0
libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 libxcb-randr0 libxcb-xfixes0 libxcb-sync1 libxcb-shm0
libxcb-render0 libxcb1 libx11-xcb1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libfreetype6
libdbus-1-3 libegl1 libgl1 libglib2.0-0"
# desktop-file-validate and appstreamcli check the .desktop and metainfo files (tests/packaging).
TEST_PACKAGES="xvfb xauth desktop-file-utils appstream"
PACKAGES="$XCB_PACKAGES $TEST_PACKAGES"

if ! command -v apt-get >/dev/null 2>&1; then
    echo "linux-system-packages: no apt-get here; install the equivalents of: $(echo $PACKAGES)" >&2
    echo "  Fedora: sudo dnf install xcb-util-cursor xcb-util-wm xcb-util-keysyms xcb-util-image xcb-util-renderutil libxkbcommon-x11 xorg-x11-server-Xvfb" >&2
    exit 0
fi
# Nothing to do when every package is installed already (the common case: no network, no root needed).
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "linux-system-packages: missing:$missing" >&2
    echo "  install them with: sudo apt-get install -y$missing" >&2
    exit 0
fi
echo "linux-system-packages: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || echo "linux-system-packages: apt-get update failed; trying the install anyway" >&2
# shellcheck disable=SC2086  # word splitting of the package list is intended
apt-get install -y -qq --no-install-recommends $missing \
    || echo "linux-system-packages: apt-get install failed (see above); the display tests will say what is missing" >&2
exit 0
