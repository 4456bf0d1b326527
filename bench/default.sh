#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions are called as "run_$name"
# bench/default.sh - what a default build (loudness and limiter) costs
# against eSpeak NG's own command line on the same chapters (issue 16).
#
# Usage: bench/default.sh [BUILD_DIR]      (default BUILD_DIR: build)
#
# Environment:
#   BENCH_RUNS=N      interleaved runs of each command (default 5)
#   BENCH_CHAPTERS=N  chapters of the book (default 10)
#   BENCH_CHARS=N     characters per chapter (default 4000)
#   BENCH_SEEDS, BENCH_KEEP as for bench/run.sh
#
# Five commands, their order rotated from run to run:
#   es  espeak-ng -v cmn-latn-pinyin -f CH.txt -w CH.wav, chapter after chapter
#   ep  the same, two at a time (xargs -P2)
#   d1  tingshu build -j1                 (default: loudness, limiter)
#   o1  tingshu build -j1 --loudness off
#   d2  tingshu build -j2
# Targets: d1 CPU <= 1.15 x es CPU; o1 CPU <= 1.00 x es CPU; d2 wall <=
# 1.15 x ep wall (medians).  Exit 0 all met, 1 one missed, 2 cannot run.
set -euo pipefail
export LC_ALL=C.UTF-8

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
BENCH_CHARS=${BENCH_CHARS:-4000}
bench_setup "${1:-build}" 5
nch=${BENCH_CHAPTERS:-10}
[[ $nch =~ ^[1-9][0-9]*$ ]] || die "BENCH_CHAPTERS must be a positive integer, not '$nch'"
voice=cmn-latn-pinyin
command -v espeak-ng >/dev/null || die "espeak-ng is not installed (apt-get install espeak-ng)"
gnutime=/usr/bin/time
[[ -x $gnutime ]] && "$gnutime" -f %M true >/dev/null 2>&1 || gnutime=

bench_workdir default 'out-*'
mkdir -p "$work/book"
for ((i = 1; i <= nch; i++)); do
	make_text "$chars" "$work/book/$(printf %02d "$i").txt" $((i * 13))
done

run_es() {
	local f
	for f in "$work"/book/*.txt; do
		espeak-ng -v "$voice" -f "$f" -w "$work/out-es/$(basename "$f" .txt).wav" || return
	done
}
run_ep() {
	# shellcheck disable=SC2016  # expanded by the inner shell
	printf '%s\n' "$work"/book/*.txt |
		xargs -P2 -I{} sh -c 'espeak-ng -v "$1" -f "$2" -w "$3/$(basename "$2" .txt).wav"' \
			sh "$voice" {} "$work/out-ep"
}
run_d1() { "$tingshu" build -q --force -j1 -o "$work/out-d1" "$work/book"; }
run_o1() { "$tingshu" build -q --force -j1 --loudness off -o "$work/out-o1" "$work/book"; }
run_d2() { "$tingshu" build -q --force -j2 -o "$work/out-d2" "$work/book"; }
declare -A label=(
	[es]="espeak-ng, chapter after chapter"
	[ep]="espeak-ng, two at a time"
	[d1]="tingshu build -j1 (default)"
	[o1]="tingshu build -j1 --loudness off"
	[d2]="tingshu build -j2 (default)"
)
declare -A wall=() cpu=()


log "eSpeak NG $(espeak-ng --version | awk '{print $4}'), $(nproc) cores, $runs runs," \
	"$nch chapters of $chars characters"
run_es >/dev/null 2>&1 || true # warm the page cache
names=(es ep d1 o1 d2)
for ((r = 0; r < runs; r++)); do
	line="run $((r + 1))/$runs:"
	for ((k = 0; k < ${#names[@]}; k++)); do
		name=${names[(r + k) % ${#names[@]}]}
		read -r w c < <(time_one "$name") || die "'${label[$name]}' failed"
		wall[$name]="${wall[$name]:-} $w"
		cpu[$name]="${cpu[$name]:-} $c"
		line+=" $name ${w}s/${c}s"
	done
	log "$line"
done

declare -A mw=() mc=()
printf '| command | wall s (median) | CPU s (median) |\n| --- | ---: | ---: |\n'
for name in "${names[@]}"; do
	read -ra xs <<<"${wall[$name]}"
	mw[$name]=$(median "${xs[@]}")
	read -ra xs <<<"${cpu[$name]}"
	mc[$name]=$(median "${xs[@]}")
	printf '| %s | %s | %s |\n' "${label[$name]}" "${mw[$name]}" "${mc[$name]}"
done
failed=0
check() { # WHAT RATIO LIMIT
	local v=PASS
	le "$2" "$3" || { v=FAIL; failed=1; }
	printf '%s: %s (target <= %s) %s\n' "$1" "$2" "$3" "$v"
}
echo
check "default -j1, CPU x eSpeak" "$(ratio "${mc[d1]}" "${mc[es]}")" 1.15
check "--loudness off -j1, CPU x eSpeak" "$(ratio "${mc[o1]}" "${mc[es]}")" 1.00
check "default -j2, wall x two eSpeaks" "$(ratio "${mw[d2]}" "${mw[ep]}")" 1.15
if [[ -n $gnutime ]]; then
	"$gnutime" -f %M -o "$work/rss" "$tingshu" build -q --force -j1 -o "$work/out-m" "$work/book"
	echo "peak memory of a default -j1 build: $(tail -n1 "$work/rss") KB"
fi
exit "$failed"
