#!/bin/sh
# A longer fuzz run of the text front end than the one under ctest.
# Usage: tests/fuzz/run.sh [SECONDS] (default 1800).  Builds build-fuzz/
# with clang; keeps the corpus in build-fuzz/tests/fuzz/corpus/work and
# any crash input in build-fuzz/tests/fuzz/.
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-1800}
CC=clang cmake -S . -B build-fuzz -DTINGSHU_FUZZ=ON >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz_frontend
corpus=build-fuzz/tests/fuzz/corpus
mkdir -p "$corpus/work"
cd build-fuzz/tests/fuzz
exec ./fuzz_frontend -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 corpus/work corpus/seed
