#!/usr/bin/env bash
# bench/incremental.sh - what a build that remembers saves: a book of many
# short chapters built clean, then built again into the same folder with
# nothing changed (every chapter up to date), then again after a
# one-sentence edit of one chapter.
#
# Usage: bench/incremental.sh [BUILD_DIR]      (default BUILD_DIR: build)
#
# Environment: BENCH_CHAPTERS (default 120) chapters of BENCH_CHARS
# (default 1500) characters each, made from the seeds: about 180,000
# characters, 2 GB of WAV, a clean build of a minute or two on 2 cores;
# BENCH_RUNS (default 3) timed reruns and edits; BENCH_JOBS (default: all
# cores); BENCH_SEEDS, BENCH_KEEP as for bench/run.sh.
#
# Targets: the up-to-date rerun takes at most 5% of the clean build's wall
# time; the build after the edit at most the time of building that chapter
# alone into a fresh folder plus 1 s.  Exit status: 0 both met, 1 one
# missed, 2 the benchmark could not run.  See bench/README.md.
set -euo pipefail
export LC_ALL=C.UTF-8

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
BENCH_CHARS=${BENCH_CHARS:-1500}
bench_setup "${1:-build}" 3
nch=${BENCH_CHAPTERS:-120}
if ! [[ $nch =~ ^[1-9][0-9]*$ ]] || ((nch < 2)); then
	die "BENCH_CHAPTERS must be an integer of at least 2, not '$nch'"
fi
jobs=${BENCH_JOBS:-$(nproc)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "BENCH_JOBS must be a positive integer, not '$jobs'"

bench_workdir incr 'out' 'alone' 'warm'
cd "$work"

# --- the book ------------------------------------------------------------------
# book/NNN.txt, each chapter starting at another line of the seeds.
mkdir book
for ((i = 1; i <= nch; i++)); do
	make_text "$chars" "$(printf 'book/%03d.txt' "$i")" $((i * 7))
done
# The chapter that is edited: one in the middle.
k=$(((nch + 1) / 2))
kfile=$(printf 'book/%03d.txt' "$k")
cp "$kfile" chapter.orig

# edit R: chapter k as it was, with one sentence of its first paragraph
# replaced by another (different in every run R).
edit() {
	local first rest
	first=$(head -n 1 chapter.orig)
	rest=$(tail -n +2 chapter.orig)
	# Up to the first full stop is the first sentence (or the whole line).
	if [[ $first == *。* ]]; then
		first="第${1}次改过的这一句话。${first#*。}"
	else
		first="第${1}次改过的这一句话。"
	fi
	printf '%s\n%s\n' "$first" "$rest" >"$kfile"
}

# timed LOG CMD...: run CMD, its output to LOG, under bash's time; sets
# W (wall seconds), C (CPU seconds, user + system, of all its processes)
# and RC.
timed() {
	local log=$1 t
	shift
	RC=0
	t=$(
		TIMEFORMAT='%3R %3U %3S'
		{ time "$@" >"$log" 2>&1; } 2>&1
	) || RC=$?
	read -r W C < <(awk '{printf "%.3f %.3f\n", $1, $2 + $3}' <<<"$t")
}

# built LOG: how many chapters the -v lines of LOG say were built.
built() { grep -c '^tingshu: \[[0-9]*/[0-9]*\] ' "$1" || true; }

log "$(nproc) cores, -j$jobs; $nch chapters of $chars characters; $runs runs; in $work"
"$tingshu" build -q -j1 -o warm "$kfile" >/dev/null 2>&1 || die "tingshu build failed (warm-up)"

# --- clean build ----------------------------------------------------------------
sync
timed clean.log "$tingshu" build -v -j"$jobs" -o out book
((RC == 0)) || { tail -n 20 clean.log >&2; die "the clean build failed (exit $RC)"; }
clean_w=$W clean_c=$C
n=$(built clean.log)
((n == nch)) || die "the clean build built $n chapters, expected $nch"
log "clean build: ${clean_w}s wall, ${clean_c}s CPU"

failed=0
notes=()

# --- up-to-date reruns, then edits (each beside the chapter built alone) --
rerun_w=() rerun_c=()
for ((r = 1; r <= runs; r++)); do
	sync
	timed rerun.log "$tingshu" build -v -j"$jobs" -o out book
	((RC == 0)) || { cat rerun.log >&2; die "the up-to-date rerun failed (exit $RC)"; }
	grep -qxF "tingshu: $nch chapters up to date in out" rerun.log || {
		cat rerun.log >&2
		die "the rerun did not say 'tingshu: $nch chapters up to date in out'"
	}
	rerun_w+=("$W") rerun_c+=("$C")
	log "rerun $r/$runs: ${W}s wall, ${C}s CPU"
done

edit_w=() edit_c=() alone_w=() alone_c=()
for ((r = 1; r <= runs; r++)); do
	edit "$r"
	# The chapter alone into a fresh folder, then the book after the edit;
	# the order alternates from run to run.
	order=(alone edit)
	((r % 2)) || order=(edit alone)
	for what in "${order[@]}"; do
		rm -rf alone
		sync
		if [[ $what == alone ]]; then
			timed alone.log "$tingshu" build -v -j"$jobs" -o alone "$kfile"
			((RC == 0)) || { cat alone.log >&2; die "building chapter $k alone failed (exit $RC)"; }
			alone_w+=("$W") alone_c+=("$C")
		else
			timed edit.log "$tingshu" build -v -j"$jobs" -o out book
			((RC == 0)) || { cat edit.log >&2; die "the build after the edit failed (exit $RC)"; }
			n=$(built edit.log)
			if ((n != 1)); then
				notes+=("edit run $r rebuilt $n chapters, expected 1")
				failed=1
			fi
			edit_w+=("$W") edit_c+=("$C")
		fi
		log "edit run $r/$runs, $what: ${W}s wall, ${C}s CPU"
	done
done

# --- report ---------------------------------------------------------------------
# row LABEL WALL... -- CPU...: median, minimum and maximum wall time,
# median CPU time.
row() {
	local label=$1 w=() c=() med spread
	shift
	while (($#)) && [[ $1 != -- ]]; do
		w+=("$1")
		shift
	done
	shift
	c=("$@")
	med=$(median "${w[@]}")
	printf '  %-34s %8.2f %8.2f %8.2f %8.2f\n' "$label" "$med" \
		"$(minimum "${w[@]}")" "$(maximum "${w[@]}")" "$(median "${c[@]}")"
	# Runs spread by more than 10% of the median (and 0.1 s): the machine
	# was busy, the wall times are not to be trusted.
	spread=$(awk -v a="$(maximum "${w[@]}")" -v b="$(minimum "${w[@]}")" 'BEGIN{print a-b}')
	if ((${#w[@]} > 1)) && ! le "$spread" "$(awk -v m="$med" 'BEGIN{print (m*0.10 > 0.1) ? m*0.10 : 0.1}')"; then
		notes+=("the runs of '$label' spread by ${spread} s around a median of $med s: the machine was busy")
	fi
}

rw=$(median "${rerun_w[@]}") rc=$(median "${rerun_c[@]}")
ew=$(median "${edit_w[@]}") ec=$(median "${edit_c[@]}")
aw=$(median "${alone_w[@]}") ac=$(median "${alone_c[@]}")
echo
echo "tingshu incremental build benchmark: $tingshu"
echo "$(nproc) cores, -j$jobs, $(date '+%Y-%m-%d %H:%M'); $nch chapters of $chars characters" \
	"(chapter $k edited), $runs runs"
echo
printf '  %-34s %8s %8s %8s %8s\n' "(seconds)" wall-med wall-min wall-max cpu-med
row "clean build" "$clean_w" -- "$clean_c"
row "up-to-date rerun" "${rerun_w[@]}" -- "${rerun_c[@]}"
row "one-sentence edit of chapter $k" "${edit_w[@]}" -- "${edit_c[@]}"
row "chapter $k alone, fresh folder" "${alone_w[@]}" -- "${alone_c[@]}"
echo
r1=$(ratio "$rw" "$clean_w")
if le "$r1" 0.05; then v=PASS; else v=FAIL; failed=1; fi
printf '  %-44s %8s   target <= 0.05   %s   (CPU %s)\n' "up-to-date rerun / clean build (wall)" \
	"$r1" "$v" "$(ratio "$rc" "$clean_c")"
d=$(awk -v a="$ew" -v b="$aw" 'BEGIN{printf "%+.2f", a-b}')
if le "$ew" "$(awk -v b="$aw" 'BEGIN{print b+1}')"; then v=PASS; else v=FAIL; failed=1; fi
printf '  %-44s %7ss   target <= +1 s   %s   (ratio %s, CPU %s)\n' "edit - chapter alone (wall)" \
	"$d" "$v" "$(ratio "$ew" "$aw")" "$(ratio "$ec" "$ac")"
printf '  %-44s %8s\n' "clean build / edit (wall): time saved x" "$(ratio "$clean_w" "$ew")"
echo
for x in "${notes[@]}"; do echo "note: $x"; done
if ((failed)); then echo "result: FAIL"; else echo "result: PASS"; fi
exit "$failed"
