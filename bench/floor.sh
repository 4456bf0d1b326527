#!/usr/bin/env bash
# bench/floor.sh - the floor under finishing: what libebur128 (one loudness
# measurement), libsoxr (22,050 -> 44,100 Hz) and libsndfile's FLAC encoder
# (libFLAC level 0) cost on their own, with none of tingshu's code, over the
# samples eSpeak NG makes of a chapter, against eSpeak NG's own command
# line making them.  No program that finishes with these libraries can add
# less than this to a plain WAV build.
#
# Usage: bench/floor.sh [BUILD_DIR]          (default BUILD_DIR: build)
#
# Environment: BENCH_RUNS (default 3), BENCH_CHARS (default 20000),
# BENCH_SEEDS, BENCH_KEEP, as for bench/run.sh; BENCH_REPS (default 3): the
# rounds of each stage inside one run of the floor tool, the best kept.
#
# Exit status: 0 the floor is under 0.10 of eSpeak NG's CPU time (the 10%
# target of issue 5 is possible), 1 it is above, 2 the benchmark could not
# run.  See bench/README.md.
set -euo pipefail
export LC_ALL=C.UTF-8

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_setup "${1:-build}" 3
floor=$(dirname "$tingshu")/bench/floor
[[ -x $floor ]] || die "no executable $floor; build first (cmake --build BUILD_DIR)"
reps=${BENCH_REPS:-3}
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "BENCH_REPS must be a positive integer, not '$reps'"
command -v espeak-ng >/dev/null || die "espeak-ng is not installed (apt-get install espeak-ng)"
voice=cmn-latn-pinyin

bench_workdir floor '*.wav' tmp

# The same text as bench/run.sh gives espeak-ng: the Chinese characters.
make_text "$chars" "$work/chapter.txt" 0
mkdir -p "$work/tmp"

# time_espeak: espeak-ng speaks the chapter into $work/espeak.wav; prints
# its CPU seconds (user + system).
time_espeak() {
	local t rc=0
	rm -f "$work/espeak.wav"
	sync
	t=$(
		TIMEFORMAT='%3U %3S'
		{ time espeak-ng -v "$voice" -f "$work/chapter.txt" -w "$work/espeak.wav" \
			2>"$work/err" >/dev/null; } 2>&1
	) || rc=$?
	((rc == 0)) || { cat "$work/err" >&2; die "espeak-ng failed (exit $rc)"; }
	awk '{printf "%.3f\n", $1 + $2}' <<<"$t"
}

# run_floor: the floor tool on $work/espeak.wav; its "STAGE SECONDS
# SAMPLES" lines go to $work/floor.out, its messages to $work/floor.err.
run_floor() {
	local rc=0
	"$floor" -k "$reps" "$work/espeak.wav" "$work/tmp" >"$work/floor.out" \
		2>"$work/floor.err" || rc=$?
	((rc == 0)) || { cat "$work/floor.err" >&2; die "$floor failed (exit $rc)"; }
}

stages=(ebur128 soxr flac flac22 wav)
declare -A label=(
	[espeak]="espeak-ng -w (synthesis: the baseline)"
	[ebur128]="ebur128: loudness, one pass"
	[soxr]="soxr: 22,050 -> 44,100 Hz, HQ"
	[flac]="flac: level 0, 44.1 kHz"
	[flac22]="flac22: level 0, 22.05 kHz"
	[wav]="wav: plain WAV, 22.05 kHz"
)
declare -A cpu=() count=()

log "eSpeak NG $(espeak-ng --version | awk '{print $4}'), $(nproc) cores, $runs runs" \
	"(floor: best of $reps rounds each), 1 chapter of $chars characters"
# warm-up: load espeak-ng and its data into the page cache
make_text 500 "$work/warm.txt" 0
espeak-ng -v "$voice" -f "$work/warm.txt" -w "$work/warm.wav" >/dev/null 2>&1 ||
	die "espeak-ng failed on a 500-character chapter"
rm -f "$work/warm.wav"

# The runs interleave eSpeak and the floor tool, and the order alternates
# (the first run needs eSpeak's WAV first), so that a busy moment of the
# machine does not fall on one side only.
for ((r = 0; r < runs; r++)); do
	if ((r % 2 == 0)); then
		c=$(time_espeak)
		run_floor
	else
		run_floor
		c=$(time_espeak)
	fi
	cpu[espeak]="${cpu[espeak]:-} $c"
	line="run $((r + 1))/$runs: espeak-ng ${c}s"
	while read -r st s n; do
		[[ -v "label[$st]" ]] || die "unexpected line from $floor: $st $s $n"
		cpu[$st]="${cpu[$st]:-} $s"
		count[$st]=$n
		line+=" $st ${s}s"
	done <"$work/floor.out"
	log "$line"
done
for st in "${stages[@]}"; do
	[[ -n ${count[$st]:-} ]] || die "$floor did not report the stage $st"
done
samples=${count[ebur128]}
count[espeak]=$samples
lufs=$(sed -n 's/.*integrated loudness \(.*\) LUFS.*/\1/p' "$work/floor.err")

declare -A med=() mn=()
for st in espeak "${stages[@]}"; do
	read -ra xs <<<"${cpu[$st]}"
	med[$st]=$(median "${xs[@]}")
	mn[$st]=$(minimum "${xs[@]}")
done
# x-med: medians over eSpeak's median; x-min: minima over eSpeak's minimum
xmed() { ratio "$1" "${med[espeak]}"; }
xmin() { ratio "$1" "${mn[espeak]}"; }
sum() { awk -v a="$1" -v b="$2" -v c="$3" -v d="${4:-0}" 'BEGIN{printf "%.3f", a + b + c - d}'; }
sum_med=$(sum "${med[ebur128]}" "${med[soxr]}" "${med[flac]}")
sum_min=$(sum "${mn[ebur128]}" "${mn[soxr]}" "${mn[flac]}")
net_med=$(sum "${med[ebur128]}" "${med[soxr]}" "${med[flac]}" "${med[wav]}")
net_min=$(sum "${mn[ebur128]}" "${mn[soxr]}" "${mn[flac]}" "${mn[wav]}")
e_x=$(xmed "${med[ebur128]}")
floor_x=$(xmed "$net_med")
read -ra xs <<<"${cpu[espeak]}"
spread=$(awk -v a="$(maximum "${xs[@]}")" -v b="${mn[espeak]}" -v m="${med[espeak]}" \
	'BEGIN{printf "%.0f", 100 * (a - b) / m}')

echo
echo "tingshu floor benchmark: $floor"
echo "eSpeak NG $(espeak-ng --version | awk '{print $4}'), voice $voice, $(nproc) cores," \
	"$(date '+%Y-%m-%d %H:%M')"
echo "1 chapter of $chars characters: $samples samples at 22,050 Hz" \
	"($(awk -v n="$samples" 'BEGIN{printf "%.1f", n / 22050 / 60}') min), ${lufs:-?} LUFS;" \
	"$runs runs, the floor's stages best of $reps rounds in each"
echo
echo "CPU seconds (user + system); ratios to espeak-ng's CPU time"
printf '  %-40s %8s %8s %8s %8s %10s\n' "" cpu-med cpu-min x-med x-min "M samp/s"
for st in espeak "${stages[@]}"; do
	printf '  %-40s %8.3f %8.3f %8s %8s %10.1f\n' "${label[$st]}" "${med[$st]}" "${mn[$st]}" \
		"$(xmed "${med[$st]}")" "$(xmin "${mn[$st]}")" \
		"$(awk -v n="${count[$st]}" -v s="${med[$st]}" 'BEGIN{print n / s / 1e6}')"
done
printf '  %-40s %8.3f %8.3f %8s %8s\n' "ebur128 + soxr + flac" "$sum_med" "$sum_min" \
	"$(xmed "$sum_med")" "$(xmin "$sum_min")"
printf '  %-40s %8.3f %8.3f %8s %8s   target <= 0.10\n' "ebur128 + soxr + flac - wav (the floor)" \
	"$net_med" "$net_min" "$floor_x" "$(xmin "$net_min")"
if ((spread > 10)); then
	printf '  note: the espeak-ng runs spread %s%% of their median: the machine was busy\n' "$spread"
fi
echo
if le "$floor_x" 0.10; then
	failed=0
	if le "$e_x" 0.10; then
		echo "verdict: the libraries leave room: their floor is $floor_x of eSpeak NG's time"
	else
		echo "verdict: one libebur128 pass alone is $e_x of eSpeak NG's time (above 0.10)," \
			"yet the floor is $floor_x: check the figures"
	fi
	echo "result: the 10% target is possible (floor $floor_x <= 0.10)"
else
	failed=1
	if le "$e_x" 0.10; then
		echo "verdict: one libebur128 pass alone is $e_x of eSpeak NG's time (under 0.10)," \
			"but with libsoxr and libFLAC the floor is $floor_x:" \
			"the 10% target is below the libraries' floor"
	else
		echo "verdict: one libebur128 pass alone is already $e_x of eSpeak NG's time" \
			"(above 0.10): the 10% target is below the libraries' floor"
	fi
	echo "result: the 10% target is not possible with these libraries (floor $floor_x > 0.10)"
fi
exit "$failed"
