#!/bin/sh
# Fuzz each target for a number of executions, longer than under ctest,
# and write down the figures.
# Usage: tests/fuzz/run.sh [RUNS [REPORT [TARGET...]]]
#   RUNS    executions per target (default 1000000)
#   REPORT  the figures, a line per target (default build-fuzz/fuzz-report.txt):
#           TARGET executions=N exec_per_s=N seconds=N workers=N max_len=N crashes=N corpus=N
#           [crash=FILE]
#   TARGET  fuzz_frontend fuzz_readalong fuzz_voice fuzz_userlex fuzz_rules
#           fuzz_wordtab fuzz_epub (default: all)
# Builds build-fuzz/ with clang (TS_FUZZ_BUILD=DIR for another folder); keeps
# each target's corpus under DIR/tests/fuzz/ (work/ beside seed/) and the log
# of each run as DIR/tests/fuzz/TARGET.log.  libFuzzer stops at the first
# crash, whose input it writes as DIR/tests/fuzz/TARGET-crash-*; the script
# then exits 1 after the other targets.
# TS_FUZZ_FORK=N runs each target as one libFuzzer run in fork mode: N
# worker processes on one corpus, the executions of all counted together
# (libFuzzer stops when their sum reaches RUNS); default 0, one process.
# TS_FUZZ_TIMEOUT=S: an input that runs longer than S seconds of wall-clock
# time is a failure (default 10); raise it when the run shares the machine
# at a lower priority (nice), where an input may wait for the processor.
# TS_FUZZ_MAX_LEN=N caps the inputs' length (default: each target's own
# below; a shorter cap runs more executions a second on the same grown
# corpus: bench/README.md).
# TS_FUZZ_TMPDIR=DIR: the TMPDIR of the run, where the front end decodes
# a file that is not UTF-8 and fork mode keeps its jobs' files (default
# /dev/shm, a tmpfs, when it is a writable folder: on an ext4 /tmp the
# creation of those files took a visible share of fuzz_frontend's time).
set -eu
cd "$(dirname "$0")/../.."
runs=${1:-1000000}
fork=${TS_FUZZ_FORK:-0}
timeout=${TS_FUZZ_TIMEOUT:-10}
build=${TS_FUZZ_BUILD:-build-fuzz}
report=${2:-$build/fuzz-report.txt}
tmp=${TS_FUZZ_TMPDIR:-}
[ -n "$tmp" ] || { [ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm; } || tmp=${TMPDIR:-/tmp}
export TMPDIR="$tmp"
[ $# -gt 2 ] && shift 2 || set --
targets=${*:-fuzz_frontend fuzz_readalong fuzz_voice fuzz_userlex fuzz_rules fuzz_wordtab fuzz_epub}
CC=clang cmake -S . -B "$build" -DTINGSHU_FUZZ=ON >/dev/null
# shellcheck disable=SC2086
cmake --build "$build" -j"$(nproc)" --target $targets
case $report in /*) ;; *) report=$PWD/$report ;; esac
: >"$report"
cd "$build/tests/fuzz"
failed=0
for t in $targets; do
	# The corpus (as tests/fuzz/CMakeLists.txt makes it) and longest input.
	case $t in
	fuzz_frontend) corpus=corpus max_len=65536 ;;
	fuzz_readalong) corpus=vtt-corpus max_len=16384 ;;
	fuzz_voice) corpus=$t-corpus max_len=4096 ;;
	fuzz_rules) corpus=$t-corpus max_len=16384 ;;
	fuzz_epub) corpus=$t-corpus max_len=65536 ;;
	*) corpus=$t-corpus max_len=8192 ;;
	esac
	max_len=${TS_FUZZ_MAX_LEN:-$max_len}
	mkdir -p "$corpus/work"
	rm -f "$t"-crash-*
	start=$(date +%s)
	rc=0
	"./$t" -runs="$runs" -max_len="$max_len" -timeout="$timeout" -rss_limit_mb=2048 -print_final_stats=1 \
		-fork="$fork" -artifact_prefix="$t-" "$corpus/work" "$corpus/seed" >"$t.log" 2>&1 || rc=$?
	secs=$(($(date +%s) - start))
	if [ "$fork" -gt 0 ]; then
		# "#N: cov: ..." after each job; "fuzzed for N iterations" at the end
		execs=$(sed -n 's/^INFO: fuzzed for \([0-9]*\) iterations.*/\1/p' "$t.log" | tail -n 1)
		[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$t.log" | tail -n 1)
		speed=$((${execs:-0} / (secs > 0 ? secs : 1)))
	else
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$t.log")
		speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$t.log")
	fi
	crash=$(ls "$t"-crash-* "$t"-leak-* "$t"-timeout-* "$t"-oom-* 2>/dev/null | head -n 1)
	crashes=0
	if [ "$rc" -ne 0 ] || [ -n "$crash" ]; then
		crashes=1
		failed=1
	fi
	line="$t executions=${execs:-0} exec_per_s=${speed:-0} seconds=$secs workers=$((fork > 0 ? fork : 1)) max_len=$max_len crashes=$crashes"
	line="$line corpus=$(find "$corpus/work" -type f | wc -l)${crash:+ crash=$PWD/$crash}"
	echo "$line" | tee -a "$report"
	[ "$crashes" -eq 0 ] || grep -m3 -E '^fuzz:|runtime error|ERROR: ' "$t.log" | sed 's/^/  /'
done
echo "figures in $report"
exit "$failed"
