#!/bin/sh
# Set up, build, and run the whole test suite: a normal build (with the
# valgrind end-to-end test and the browser test), an AddressSanitizer/UBSan
# build, and short libFuzzer runs of the text front end, the WebVTT reader
# and read-along page, the loaders of data files and the EPUB reader
# (clang, ASan and UBSan).
# Usage: scripts/test.sh
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup-debian.sh --test
jobs=$(nproc)

cmake -S . -B build -DTINGSHU_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

cmake -S . -B build-asan -DTINGSHU_SANITIZE=ON -DTINGSHU_WERROR=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	ctest --test-dir build-asan --output-on-failure -j"$jobs"

CC=clang cmake -S . -B build-fuzz -DTINGSHU_FUZZ=ON -DTINGSHU_FUZZ_SECONDS=60 >/dev/null
cmake --build build-fuzz -j"$jobs" --target fuzz_frontend fuzz_readalong fuzz_voice fuzz_userlex \
	fuzz_rules fuzz_wordtab fuzz_epub
ctest --test-dir build-fuzz --output-on-failure -L fuzz
