#!/usr/bin/env bash
# bench/aacopts.sh - CPU time against quality of FFmpeg's AAC encoder (the
# fast coder) with each of its options, on the chapters tingshu makes of
# the seeds (issue 35: where is CPU left in the one AAC encoding of a
# chapter?).  Builds the seed chapters as WAV, then runs bench/tools/
# aacopts on each: every configuration BENCH_REPS times (default 3), in
# turns, best and median CPU seconds, and the decoded AAC's segmental SNR,
# SNR, log-spectral distance, peak, RMS and bit rate against the WAV (see
# the tool's head comment for the definitions).
#
# Usage: bench/aacopts.sh [BUILD_DIR] [CONFIG...]   (default BUILD_DIR: build)
# With no CONFIG, the set of bench/README.md's table: the encoder's rate
# control ("abr", what tingshu used to 875dcf8), its private options off
# one by one, the constant quantizer tingshu uses now, and tingshu itself.
# BENCH_BITRATE (default 64000: tingshu's default) is the bit rate.
#
# Exit 0, or 2 when something could not run.
set -euo pipefail
export LC_ALL=C.UTF-8

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_setup "${1:-build}" 1
shift || true
tool=$(dirname "$tingshu")/bench/aacopts
[[ -x $tool ]] || die "no executable $tool; build first (cmake --build BUILD_DIR)"
reps=${BENCH_REPS:-3}
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "BENCH_REPS must be a positive integer, not '$reps'"
rate=${BENCH_BITRATE:-64000}
[[ $rate =~ ^[1-9][0-9]*$ ]] || die "BENCH_BITRATE must be a positive integer, not '$rate'"
configs=("$@")
if ((${#configs[@]} == 0)); then
	configs=(abr
		abr_pns0:aac_pns=0
		abr_tns0:aac_tns=0
		abr_pns0_tns0:aac_pns=0,aac_tns=0
		abr_is0_ms0:aac_is=0,aac_ms=0
		abr_cut9k:cutoff=9000
		q155:flags=+qscale,global_quality=155
		q155_pns0_tns0:flags=+qscale,global_quality=155,aac_pns=0,aac_tns=0
		tingshu)
fi
bench_workdir aacopts '*/*.wav' tmp

mkdir -p "$work/in" "$work/tmp"
cp "${seed_files[@]}" "$work/in/"
log "building the seed chapters ..."
"$tingshu" build -q -j1 -o "$work/out" "$work/in" || die "the seed chapters' build failed"
shopt -s nullglob
wavs=("$work"/out/*.wav)
shopt -u nullglob
((${#wavs[@]} > 0)) || die "the build made no WAV"
for w in "${wavs[@]}"; do
	log "$(basename "$w") ..."
	printf '%s\n' "$(basename "$w")"
	TMPDIR=$work/tmp "$tool" -k "$reps" -b "$rate" "$w" "${configs[@]}" 2>"$work/err" ||
		{ cat "$work/err" >&2; die "$tool failed"; }
done
