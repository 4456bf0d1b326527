#!/usr/bin/env bash
# bench/finishing.sh - what the finishing stage costs: loudness measurement
# and normalization, the true-peak limiter, resampling and encoding,
# against a plain WAV build of the same chapters (--loudness off: eSpeak's
# samples, stitched, written as 16-bit WAV at its own 22,050 Hz).
#
# Usage: bench/finishing.sh [BUILD_DIR]      (default BUILD_DIR: build)
#
# Environment: BENCH_RUNS (default 3), BENCH_CHARS (default 20000),
# BENCH_SEEDS, BENCH_KEEP, as for bench/run.sh.
#
# Exit status: 0 the target is met (the whole finishing, FLAC at 44.1 kHz,
# adds at most 10% to the WAV build's time), 1 it is not, 2 the benchmark
# could not run.  See bench/README.md.
set -euo pipefail
export LC_ALL=C.UTF-8

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_setup "${1:-build}" 3

bench_workdir finish 'out-*'

mkdir -p "$work/chapters"
make_text "$chars" "$work/chapters/01.txt" 0
make_text "$chars" "$work/chapters/02.txt" 17

# The configurations, each run with -j1 and -j2.
names=(raw norm rate flac full)
declare -A label=(
	[raw]="WAV, no finishing (--loudness off)"
	[norm]="WAV, loudness + limiter (default)"
	[rate]="WAV, loudness + limiter, 44.1 kHz"
	[flac]="FLAC, loudness + limiter"
	[full]="FLAC, loudness + limiter, 44.1 kHz"
)
declare -A opts=(
	[raw]="--loudness off"
	[norm]=""
	[rate]="--sample-rate 44100"
	[flac]="--format flac"
	[full]="--format flac --sample-rate 44100"
)

# time_one NAME J: prints "WALL CPU" of one build (seconds).
time_one() {
	local name=$1 j=$2 t rc=0 out=$work/out-$1-$2
	rm -rf "$out"
	sync
	# shellcheck disable=SC2086  # the options are words
	t=$(
		TIMEFORMAT='%3R %3U %3S'
		{ time "$tingshu" build -q -j"$j" ${opts[$name]} -o "$out" "$work/chapters" \
			2>"$work/err" >/dev/null; } 2>&1
	) || rc=$?
	((rc == 0)) || { cat "$work/err" >&2; die "'${label[$name]}' -j$j failed (exit $rc)"; }
	awk '{printf "%.3f %.3f\n", $1, $2 + $3}' <<<"$t"
}

log "$(nproc) cores, $runs runs, 2 chapters of $chars characters"
"$tingshu" build -q -j1 -o "$work/out-warm" "$work/chapters/01.txt" >/dev/null 2>&1 ||
	die "tingshu build failed"
declare -A wall=() cpu=()
for ((r = 0; r < runs; r++)); do
	line="run $((r + 1))/$runs:"
	for j in 1 2; do
		for ((k = 0; k < ${#names[@]}; k++)); do # rotate the order
			name=${names[(r + k) % ${#names[@]}]}
			read -r w c < <(time_one "$name" "$j")
			wall[$name-$j]="${wall[$name-$j]:-} $w"
			cpu[$name-$j]="${cpu[$name-$j]:-} $c"
			line+=" $name/-j$j ${w}s"
		done
	done
	log "$line"
done

failed=0
echo
echo "tingshu finishing benchmark: $tingshu"
echo "$(nproc) cores, $(date '+%Y-%m-%d %H:%M'); 2 chapters of $chars characters, $runs runs"
for j in 1 2; do
	echo
	echo "-j$j (seconds; ratios against the first row)"
	printf '  %-38s %8s %8s %8s %8s\n' "" wall-med cpu-med wall-x cpu-x
	read -ra xs <<<"${wall[raw-$j]}"
	base_w=$(median "${xs[@]}")
	read -ra xs <<<"${cpu[raw-$j]}"
	base_c=$(median "${xs[@]}")
	for name in "${names[@]}"; do
		read -ra xs <<<"${wall[$name-$j]}"
		w=$(median "${xs[@]}")
		read -ra xs <<<"${cpu[$name-$j]}"
		c=$(median "${xs[@]}")
		printf '  %-38s %8.2f %8.2f %8s %8s\n' "${label[$name]}" "$w" "$c" \
			"$(ratio "$w" "$base_w")" "$(ratio "$c" "$base_c")"
	done
	read -ra xs <<<"${wall[full-$j]}"
	rf=$(ratio "$(median "${xs[@]}")" "$base_w")
	if le "$rf" 1.10; then v=PASS; else v=FAIL; failed=1; fi
	printf '  %-38s %8s   target <= 1.10  %s\n' "full finishing / WAV build (wall)" "$rf" "$v"
done
echo
if ((failed)); then echo "result: FAIL"; else echo "result: PASS"; fi
exit "$failed"
