#!/usr/bin/env bash
# bench/wholebook.sh - what --book m4b,epub costs now that each chapter's
# AAC is encoded by the worker that makes the chapter and the M4B and EPUB
# are assembled from it (issue 35): a book of BENCH_CHAPTERS chapters
# (default 16) of BENCH_CHARS characters each (default 3,000), made from
# the seeds, built from scratch
#   - plain with -j1 (the yardstick of CPU),
#   - with --book m4b,epub at -j1 and at -j2 (wall, CPU, peak memory),
#   - with --book m4b,epub by the binary BENCH_BASE (optional: a build of
#     6479fee, which encoded the AAC twice, after the chapters) at -j1,
# then, in the -j2 folder, the M4B and EPUB made again from the chapters
# and their AAC (assembly alone: the whole-book files' share of the -j2
# build), and a one-sentence edit of one chapter built again with -j2.
#
# Usage: bench/wholebook.sh [BUILD_DIR]        (default BUILD_DIR: build)
#        BENCH_BASE=/path/to/old/tingshu bench/wholebook.sh
#
# Prints each run's wall and CPU seconds (user + system, all processes)
# and peak memory (of the largest process), then the ratios the issue
# sets targets for.  Exit 0, or 2 when a build fails.
set -euo pipefail
export LC_ALL=C.UTF-8

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
BENCH_CHARS=${BENCH_CHARS:-3000}
bench_setup "${1:-build}" 1
nch=${BENCH_CHAPTERS:-16}
[[ $nch =~ ^[1-9][0-9]*$ ]] || die "BENCH_CHAPTERS must be a positive integer, not '$nch'"
[[ -x /usr/bin/time ]] || die "needs GNU time at /usr/bin/time"
base=${BENCH_BASE:-}
[[ -z $base || -x $base ]] || die "BENCH_BASE=$base is not an executable"
bench_workdir wholebook '*/*.wav' '*/*.m4b' '*/*.epub' '*/.tingshu'

in=$work/in
mkdir -p "$in"
for ((i = 1; i <= nch; i++)); do
	{
		printf '第%d章 测试\n' "$i"
		make_text "$chars" /dev/stdout "$((i * 7))"
	} >"$in/$(printf '%04d' "$i").txt"
done

# timed NAME BINARY ARGS...: "WALL CPU_SECONDS MAX_RSS_KB" of one run.
timed() {
	local name=$1
	shift
	/usr/bin/time -o "$work/$name.time" -f '%e %U %S %M' "$@" >/dev/null 2>"$work/$name.err" ||
		die "failed: $* ($(tail -n 3 "$work/$name.err"))"
	awk '{printf "%.2f %.2f %d\n", $1, $2 + $3, $4}' "$work/$name.time"
}

declare -A wall cpu rss
run() { # NAME OUT BINARY ARGS...
	local name=$1 out=$2 bin=$3
	shift 3
	log "$name ..."
	read -r "wall[$name]" "cpu[$name]" "rss[$name]" < <(timed "$name" "$bin" build -q "$@" -o "$out" "$in")
	printf '%-22s | %7.2f | %7.2f | %5.0f\n' "$name" "${wall[$name]}" "${cpu[$name]}" \
		"$((rss[$name] / 1024))"
}

printf '%s\n' "run                    | wall  s |  CPU  s | peak MB"
run plain_j1 "$work/plain" "$tingshu" -j1
run book_j1 "$work/j1" "$tingshu" -j1 --book m4b,epub
run book_j2 "$work/j2" "$tingshu" -j2 --book m4b,epub
[[ -n $base ]] && run base_book_j1 "$work/base" "$base" -j1 --book m4b,epub
rm -f "$work/j2/"*.m4b "$work/j2/"*.epub "$work/j2/.tingshu/book."*
run assembly_j2 "$work/j2" "$tingshu" -j2 --book m4b,epub
sed -i '3s/。/，一句改了的话。/' "$in/$(printf '%04d' $(((nch + 1) / 2))).txt"
run edit_j2 "$work/j2" "$tingshu" -j2 --book m4b,epub

hours=$(jq '[.chapters[].duration_s] | add / 3600' "$work/j2/manifest.json")
awk -v h="$hours" -v n="$nch" -v c="$chars" -v w1="${wall[book_j1]}" -v w2="${wall[book_j2]}" \
	-v c1="${cpu[book_j1]}" -v cp="${cpu[plain_j1]}" -v cb="${cpu[base_book_j1]:-0}" \
	-v a="${wall[assembly_j2]}" -v e="${wall[edit_j2]}" 'BEGIN {
	printf "\n%d chapters of %d characters, %.2f hours of audio\n", n, c, h
	printf "--book m4b,epub -j2 wall / -j1 wall:        %.2f (target <= 0.6)\n", w2 / w1
	printf "--book m4b,epub -j1 CPU / plain -j1 CPU:    %.2f\n", c1 / cp
	if (cb > 0)
		printf "--book m4b,epub -j1 CPU / BENCH_BASE'\''s:    %.2f (target <= 0.6; BENCH_BASE %.2f x plain)\n", c1 / cb, cb / cp
	printf "one-sentence edit wall / first -j2 build:   %.3f (target <= 0.1)\n", e / w2
	printf "assembly alone / the -j2 build (wall):      %.3f (target <= 0.05)\n", a / w2
}'
