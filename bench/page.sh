#!/usr/bin/env bash
# bench/page.sh - the read-along page of a long book (issue 34): books of
# 300, 1,000 and 3,000 chapters (BENCH_PAGE_CHAPTERS, space-separated),
# made without synthesis by the browser test's make_page --book (a few
# seconds of silence per chapter, hard-linked, and each chapter's script
# of 4 cues, written by the timing files' writer); for each, the size of
# index.html and the time ts_readalong_html() took to make it, the best
# of BENCH_RUNS (default 5).  Nothing of a chapter is read to make the
# page, so both grow with the number of chapters alone.
#
# Usage: bench/page.sh [BUILD_DIR]        (default BUILD_DIR: build)
#
# Prints: chapters | index.html bytes | bytes a chapter | best ms to make it
# | ms a thousand chapters.  Exit 0, or 2 when make_page fails.
set -euo pipefail
export LC_ALL=C.UTF-8

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
bench_setup "${1:-build}" 5
make_page=$(dirname "$tingshu")/tests/browser/make_page
[[ -x $make_page ]] || die "no executable $make_page; build first (it is a test program)"
bench_workdir page '*/*.wav'

printf '%s\n' "chapters | index.html bytes | bytes a chapter | best ms to make it | ms a thousand chapters"
for n in ${BENCH_PAGE_CHAPTERS:-300 1000 3000}; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "BENCH_PAGE_CHAPTERS: '$n' is not a number of chapters"
	best= bytes=
	for ((r = 0; r < runs; r++)); do
		dir=$work/book-$n-$r
		mkdir -p "$dir"
		line=$("$make_page" --book "$dir" "$n" 4 | grep '^page of') ||
			die "make_page --book $dir $n 4 failed"
		# "page of N chapters: BYTES bytes, made in MS ms"
		read -r bytes ms < <(sed -E 's/.*: ([0-9]+) bytes, made in ([0-9.]+) ms/\1 \2/' <<<"$line")
		if [[ -z $best ]] || awk -v a="$ms" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$ms
		fi
		rm -rf "$dir"
	done
	awk -v n="$n" -v b="$bytes" -v ms="$best" \
		'BEGIN { printf "%d | %d | %.0f | %.2f | %.2f\n", n, b, b / n, ms, ms * 1000 / n }'
done
