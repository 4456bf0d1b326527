#!/bin/sh
# Set up, build, and run the whole test suite: a normal build (with the
# valgrind end-to-end test and the browser test), an AddressSanitizer/UBSan
# build, and short libFuzzer runs of the text front end, the WebVTT reader
# and read-along page, the loaders of data files and the EPUB reader
# (clang, ASan and UBSan).
#
# Each test runs where it shows most.  The sanitizer build runs the
# end-to-end tests and the fault sweeps (labels e2e and faults: under
# AddressSanitizer a leak, a bad free or a use after free on any path is an
# error, and a failed call's path is where they hide).  The normal build runs
# what the sanitizers cannot or add nothing to: the valgrind run of the
# whole program, the read-along page in Chromium and the recipes of contrib/
# (labels valgrind, browser, cluster: a page's script, and scripts and
# daemons around ordinary builds).  The unit, accuracy and data tests run in
# both (seconds).  Every end-to-end test ran in both builds until the suite
# took 38 minutes of CI's 20 (2 cores that make processes slowly: the fault
# sweeps alone run tingshu some thousands of times).
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup-debian.sh --test
jobs=$(nproc)

cmake -S . -B build -DTINGSHU_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs" -L '^(unit|accuracy|data|valgrind|browser|cluster)$'

cmake -S . -B build-asan -DTINGSHU_SANITIZE=ON -DTINGSHU_WERROR=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE '^(browser|cluster)$'

CC=clang cmake -S . -B build-fuzz -DTINGSHU_FUZZ=ON -DTINGSHU_FUZZ_SECONDS=60 >/dev/null
cmake --build build-fuzz -j"$jobs" --target fuzz_frontend fuzz_readalong fuzz_voice fuzz_userlex \
	fuzz_rules fuzz_wordtab fuzz_epub
ctest --test-dir build-fuzz --output-on-failure -j"$jobs" -L fuzz
