#!/bin/sh
# Install what tingshu needs on Debian 12 (run as root, or with sudo
# available).  With --test, also what the test suite uses.
set -eu
pkgs="build-essential cmake pkg-config libespeak-ng-dev espeak-ng-data libsndfile1-dev libuchardet-dev libutf8proc-dev libebur128-dev libsoxr-dev libavformat-dev libavcodec-dev libzip-dev libxml2-dev"
test_pkgs="jq unzip epubcheck default-jre-headless valgrind espeak-ng util-linux clang libclang-rt-14-dev clang-format python3 chromium chromium-driver parallel openssh-server openssh-client rsync slurm-wlm munge"
if [ "${1:-}" = "--test" ]; then
	pkgs="$pkgs $test_pkgs"
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
	SUDO=sudo
fi
# Skip apt when everything is already there (dpkg-query is quick).
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "setup: installing$missing" >&2
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
