#!/usr/bin/env bash
# bench/formats.sh - what each --format costs: one chapter of BENCH_CHARS
# characters built with -j1 in every format at its default quality (and
# FLAC at --quality 10), against the WAV build of the same chapter.
#
# Usage: bench/formats.sh [BUILD_DIR]        (default BUILD_DIR: build)
#
# Environment:
#   BENCH_RUNS=N     runs of each build (default 3); the median CPU time counts
#   BENCH_CHARS=N    characters in the chapter (default 20000)
#
# For each format: the median CPU time (user + system) of the build, its
# ratio to the WAV build, the size of the file, and the encoder's speed in
# samples a second: the audio's samples over the CPU time the format adds
# to a WAV build (Opus: its samples at 48 kHz, resampling included).
# Exit 0, or 2 when a build fails.
set -euo pipefail
export LC_ALL=C.UTF-8

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
bench_setup "${1:-build}" 3
build=$(dirname "$tingshu")
[[ -x $build/tests/e2e/wavinfo ]] || die "no $build/tests/e2e/wavinfo (a build with tests)"
[[ -x /usr/bin/time ]] || die "needs GNU time at /usr/bin/time"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make_text "$chars" "$work/chapter.txt" 0

specs=(wav: flac: flac:10 ogg: mp3: opus:)
declare -A cpu frames size

build_once() { # FORMAT QUALITY -> CPU seconds (user + system) of a -j1 build
	local f=$1 q=$2 t
	rm -rf "$work/out"
	t=$(/usr/bin/time -f '%U %S' "$tingshu" build -q -j1 --format "$f" ${q:+--quality "$q"} \
		-o "$work/out" "$work/chapter.txt" 2>&1 >/dev/null | tail -n 1) ||
		die "build --format $f failed: $t"
	awk '{print $1 + $2}' <<<"$t"
}

# The runs interleave the formats, so that a busy moment of the machine
# does not fall on one format only.
for ((r = 0; r < runs; r++)); do
	for spec in "${specs[@]}"; do
		f=${spec%%:*} q=${spec#*:}
		cpu[$spec]+="$(build_once "$f" "$q") "
		if ((r == 0)); then
			file=$(find "$work/out" -name "*.$f" | head -n 1)
			frames[$spec]=$("$build/tests/e2e/wavinfo" "$file" | sed -n 's/^frames=//p')
			size[$spec]=$(stat -c %s "$file")
		fi
	done
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

printf '%d characters, %d runs each, -j1, median CPU seconds\n' "$chars" "$runs"
printf '%-10s %8s %7s %10s %16s\n' format 'CPU s' ratio 'MB' 'encoder M/s'
wav_cpu=$(median <<<"${cpu[wav:]}")
for spec in "${specs[@]}"; do
	f=${spec%%:*} q=${spec#*:}
	awk -v f="$f${q:+ q$q}" -v c="$(median <<<"${cpu[$spec]}")" -v w="$wav_cpu" \
		-v b="${size[$spec]}" -v n="${frames[$spec]}" 'BEGIN {
		extra = c - w
		speed = (f == "wav") ? "-" : (extra > 0 ? sprintf("%.1f", n / extra / 1e6) : "n/a")
		printf "%-10s %8.2f %7.3f %10.1f %16s\n", f, c, c / w, b / 1e6, speed }'
done
