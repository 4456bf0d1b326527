#!/usr/bin/env bash
# bench/wholebook.sh - what --book m4b and --book epub add to a WAV build,
# and their peak memory: a book of BENCH_CHAPTERS chapters (default 120)
# of BENCH_CHARS characters each (default 1000, about 4.5 minutes of
# audio), made from the seeds, built with -j1 as WAV; then the M4B alone,
# and the EPUB alone, made from the finished chapters (the chapters are up
# to date), BENCH_RUNS times each (default 1); and the same for a book of a
# tenth of the chapters, so that the memory's growth with the book's length
# shows.
#
# Usage: bench/wholebook.sh [BUILD_DIR]        (default BUILD_DIR: build)
#
# Prints, per book and file: chapters, hours of audio, the WAV build's CPU
# seconds (user + system) and peak resident memory (of the largest
# process), the file's CPU seconds, its ratio to the WAV build, its speed
# (times real time), its peak memory and its size.  Exit 0, or 2 when a
# build fails.
set -euo pipefail
export LC_ALL=C.UTF-8

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
BENCH_CHARS=${BENCH_CHARS:-1000}
bench_setup "${1:-build}" 1
nch=${BENCH_CHAPTERS:-120}
[[ $nch =~ ^[1-9][0-9]*$ ]] || die "BENCH_CHAPTERS must be a positive integer, not '$nch'"
[[ -x /usr/bin/time ]] || die "needs GNU time at /usr/bin/time"
bench_workdir wholebook '*/out/*.wav' '*/out/*.m4b' '*/out/*.epub'

# timed LOG CMD...: run CMD, "CPU_SECONDS MAX_RSS_KB" into LOG.
timed() {
	local log=$1
	shift
	/usr/bin/time -o "$log" -f '%U %S %M' "$@" >/dev/null 2>"$log.err" ||
		die "failed: $* ($(tail -n 3 "$log.err"))"
	awk '{printf "%.2f %d\n", $1 + $2, $3}' "$log"
}

printf '%s\n' "chapters | hours | WAV build CPU s | peak MB | file | CPU s | ratio | x real time | peak MB | MB"
for n in $((nch / 10 > 0 ? nch / 10 : 1)) "$nch"; do
	d=$work/book$n
	mkdir -p "$d/in"
	for ((i = 1; i <= n; i++)); do
		{
			printf '第%d章 测试\n' "$i"
			make_text "$chars" /dev/stdout "$((i * 7))"
		} >"$d/in/$(printf '%04d' "$i").txt"
	done
	read -r wav_cpu wav_rss < <(timed "$d/wav.time" "$tingshu" build -q -j1 -o "$d/out" "$d/in")
	hours=$(jq '[.chapters[].duration_s] | add / 3600' "$d/out/manifest.json")
	for kind in m4b epub; do
		best_cpu='' best_rss=0
		for ((r = 0; r < runs; r++)); do
			rm -f "$d/out/"*.$kind "$d/out/.tingshu/book.$kind"
			read -r cpu rss < <(timed "$d/$kind.time" "$tingshu" build -q -j1 --book $kind -o "$d/out" "$d/in")
			if [[ -z $best_cpu ]] || awk "BEGIN{exit !($cpu < $best_cpu)}"; then best_cpu=$cpu; fi
			((rss > best_rss)) && best_rss=$rss
		done
		file=$(jq -r ".book_files.$kind" "$d/out/manifest.json")
		awk -v n="$n" -v h="$hours" -v wc="$wav_cpu" -v wr="$wav_rss" -v k="$kind" -v mc="$best_cpu" \
			-v mr="$best_rss" -v sz="$(stat -c %s "$d/out/$file")" 'BEGIN {
			printf "%d | %.2f | %.1f | %.0f | %s | %.1f | %.2f | %.0f | %.0f | %.1f\n",
				n, h, wc, wr / 1024, k, mc, mc / wc, h * 3600 / mc, mr / 1024, sz / 1048576 }'
	done
done
