#!/usr/bin/env bash
# bench/stress.sh - builds under CPU and I/O stress, to find races and
# timeouts (issue 20, item 2): BENCH_BUILDS builds (default 50) of a book
# of ten chapters of BENCH_CHARS characters (default 600), each into a
# fresh folder with -j BENCH_JOBS (default 1), while BENCH_HOGS busy loops
# (default: 4 a core) and a disk writer (dd of 64 MB files, synced, in a
# loop) run beside them; then as many again into the same folder with
# --force, so that every build replaces what the one before it made.
# Every build's exit status and stderr are kept; each that is not 0 is
# printed with its messages.
#
# Usage: bench/stress.sh [BUILD_DIR]          (default BUILD_DIR: build)
#
# Prints the load average during the runs, the builds, how many failed,
# and each failure's messages.  Exit 0 when none failed, 1 otherwise, 2
# when the set-up fails.
set -euo pipefail
export LC_ALL=C.UTF-8
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
BENCH_CHARS=${BENCH_CHARS:-600}
bench_setup "${1:-build}" 1
builds=${BENCH_BUILDS:-50}
jobs=${BENCH_JOBS:-1}
hogs=${BENCH_HOGS:-$(($(nproc) * 4))}
bench_workdir stress '*/out*'
cd "$work"
for ((c = 1; c <= 10; c++)); do
	echo "第${c}章 风雨"
	make_text "$chars" part.txt $((c * 5))
	cat part.txt
done >book.txt

# The stress: busy loops and a disk writer, stopped when the script ends.
for ((i = 0; i < hogs; i++)); do
	(while :; do :; done) &
done
(while :; do dd if=/dev/zero of=disk.tmp bs=1M count=64 conv=fsync status=none; done) &

run() { # LABEL N OUT EXTRA...
	local label=$1 n=$2 out=$3 rc
	shift 3
	rc=0
	"$tingshu" build -q -j"$jobs" "$@" -o "$out" book.txt >/dev/null 2>"log.$label.$n" || rc=$?
	echo "$rc" >"rc.$label.$n"
	[ "$rc" = 0 ] || { echo "build $label $n: exit $rc"; sed 's/^/  | /' "log.$label.$n"; }
}
sleep 2
for ((n = 1; n <= builds; n++)); do run fresh "$n" "out$n"; rm -rf "out$n"; done
load1=$(cut -d' ' -f1 /proc/loadavg)
for ((n = 1; n <= builds; n++)); do run force "$n" outf --force; done
load2=$(cut -d' ' -f1 /proc/loadavg)
failed=$(cat rc.* | grep -vcx 0 || true)
echo "load average (1 min) after the fresh builds: $load1, after the forced ones: $load2"
echo "builds: $((2 * builds)) ($builds fresh, $builds --force into one folder), -j$jobs, $hogs busy loops and a disk writer; failed: $failed"
[ "$failed" = 0 ]
