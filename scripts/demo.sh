#!/bin/sh
# Set up, build, and turn the sample chapters in seeds/ into an audiobook
# in out/.  Usage: scripts/demo.sh
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup-debian.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
./build/tingshu build -o out seeds/
echo "Listen: out/playlist.m3u, or open out/index.html in a browser to follow the text"
