#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions are called as "run_$name" and from traps
# bench/run.sh - speed and memory of tingshu against eSpeak NG's own command line.
#
# Usage: bench/run.sh [BUILD_DIR]        (default BUILD_DIR: build)
#
# Environment:
#   BENCH_RUNS=N     timed runs of each speed measurement (default 5); the
#                    median is compared, the minimum shown beside it
#   BENCH_QUICK=1    memory test without the 250k and 500k character chapters
#   BENCH_CHARS=N    characters per chapter in the speed test (default 20000)
#   BENCH_KEEP=1     keep the work directory (inputs and logs) afterwards
#   BENCH_SEEDS=DIR  seed chapters to repeat (default: seeds/ of the project)
#
# Exit status: 0 every target met, 1 some target missed (or a build
# failed), 2 the benchmark could not run.  See bench/README.md.
set -euo pipefail
export LC_ALL=C.UTF-8

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

# ---- configuration ----------------------------------------------------

bench_setup "${1:-build}" 5
quick=${BENCH_QUICK:-0}
voice=cmn-latn-pinyin

command -v espeak-ng >/dev/null || die "espeak-ng is not installed (apt-get install espeak-ng)"
gnutime=/usr/bin/time
[[ -x $gnutime ]] && "$gnutime" -f %M true >/dev/null 2>&1 || gnutime=
if [[ $quick == 1 ]]; then
	mem_sizes=(10000 50000 100000)
else
	mem_sizes=(10000 50000 100000 250000 500000)
fi

bench_workdir run 'out*' 'mem/*/out'

# ---- inputs -------------------------------------------------------------

log "work directory $work"
mkdir -p "$work/chapters"
make_text "$chars" "$work/chapters/01.txt" 0
make_text "$chars" "$work/chapters/02.txt" 17   # same size, other text order
for n in "${mem_sizes[@]}"; do
	mkdir -p "$work/mem/$n/in"
	make_text "$n" "$work/mem/$n/in/01.txt" 0
done

# ---- helpers --------------------------------------------------------------

now_ns() { date +%s%N; }

wav_seconds() { # ≈ duration of 22050 Hz 16-bit mono WAV files
	local total=0 f s
	for f in "$@"; do
		s=$(stat -c %s "$f")
		total=$((total + s - 44))
	done
	awk -v b="$total" 'BEGIN{printf "%.0f", b/44100}'
}

espeak_one() { espeak-ng -v "$voice" -f "$1" -w "$2"; }

# each run_* leaves its output in $work/out-NAME, made fresh before timing
run_es() {
	espeak_one "$work/chapters/01.txt" "$work/out-es/01.wav" &&
		espeak_one "$work/chapters/02.txt" "$work/out-es/02.wav"
}
run_ep() {
	local p1 p2 rc=0
	espeak_one "$work/chapters/01.txt" "$work/out-ep/01.wav" &
	p1=$!
	espeak_one "$work/chapters/02.txt" "$work/out-ep/02.wav" &
	p2=$!
	wait "$p1" || rc=$?
	wait "$p2" || rc=$?
	return "$rc"
}
# Synthesis and stitching alone, as eSpeak's command line does: loudness
# normalization (the finishing stage) is measured by bench/finishing.sh.
run_t1() { "$tingshu" build -q --force --loudness off -j1 -o "$work/out-t1" "$work/chapters"; }
run_t2() { "$tingshu" build -q --force --loudness off -j2 -o "$work/out-t2" "$work/chapters"; }

declare -A label=(
	[es]="espeak-ng, one at a time"
	[ep]="espeak-ng, two side by side"
	[t1]="tingshu build -j1 (loudness off)"
	[t2]="tingshu build -j2 (loudness off)"
)
declare -A samples=() cpu=()


# ---- speed ----------------------------------------------------------------

log "eSpeak NG $(espeak-ng --version | awk '{print $4}'), $(nproc) cores, $runs runs," \
	"2 chapters of $chars characters"
# warm-up: load the programs and eSpeak's data into the page cache
mkdir -p "$work/warm/in"
make_text 500 "$work/warm/in/01.txt" 0
espeak_one "$work/warm/in/01.txt" "$work/warm/w.wav" >/dev/null
"$tingshu" build -q --force -j1 -o "$work/warm/out" "$work/warm/in" ||
	die "tingshu build failed on a 500-character chapter"

order=(es ep t1 t2)
for ((r = 0; r < runs; r++)); do
	line="run $((r + 1))/$runs:"
	for ((k = 0; k < 4; k++)); do   # rotate the order from run to run
		name=${order[(r + k) % 4]}
		read -r w c < <(time_one "$name") || die "'${label[$name]}' failed"
		samples[$name]="${samples[$name]:-} $w"
		cpu[$name]="${cpu[$name]:-} $c"
		line+=" $name ${w}s"
	done
	log "$line"
done

# check what the last runs made
shopt -s nullglob
t1_wavs=("$work"/out-t1/*.wav)
t2_wavs=("$work"/out-t2/*.wav)
shopt -u nullglob
(( ${#t1_wavs[@]} == 2 && ${#t2_wavs[@]} == 2 )) ||
	die "tingshu did not make 2 WAV files (-j1: ${#t1_wavs[@]}, -j2: ${#t2_wavs[@]})"
if ! cmp -s "${t1_wavs[0]}" "${t2_wavs[0]}" || ! cmp -s "${t1_wavs[1]}" "${t2_wavs[1]}"; then
	log "warning: tingshu -j1 and -j2 made different audio"
	j_differs=1
else
	j_differs=0
fi
audio_es=$(wav_seconds "$work"/out-es/*.wav)
audio_ts=$(wav_seconds "${t1_wavs[@]}")
rm -rf "$work"/out-*

declare -A med=() mn=() mx=() mcpu=()
for name in es ep t1 t2; do
	read -ra xs <<<"${samples[$name]}"
	med[$name]=$(median "${xs[@]}")
	mn[$name]=$(minimum "${xs[@]}")
	mx[$name]=$(maximum "${xs[@]}")
	read -ra xs <<<"${cpu[$name]}"
	mcpu[$name]=$(median "${xs[@]}")
done
r1cpu=$(ratio "${mcpu[t1]}" "${mcpu[es]}")
r2cpu=$(ratio "${mcpu[t2]}" "${mcpu[ep]}")
# spread of the runs: (max - min) / median, worst of the four
spread=$(for name in es ep t1 t2; do
	awk -v a="${mx[$name]}" -v b="${mn[$name]}" -v m="${med[$name]}" 'BEGIN{printf "%.0f\n", 100*(a-b)/m}'
done | sort -n | tail -n1)
r1=$(ratio "${med[t1]}" "${med[es]}")
r2=$(ratio "${med[t2]}" "${med[ep]}")
r1min=$(ratio "${mn[t1]}" "${mn[es]}")
r2min=$(ratio "${mn[t2]}" "${mn[ep]}")
failed=0
verdict() { if le "$1" "$2"; then echo PASS; else echo FAIL; fi; }
v1=$(verdict "$r1" 1.10); [[ $v1 == PASS ]] || failed=1
v2=$(verdict "$r2" 1.05); [[ $v2 == PASS ]] || failed=1

# ---- memory -------------------------------------------------------------

# mem_build N: tingshu build -j1 -v on the N-character chapter; writes
# "status worker_kb process_kb wall_s" to $work/mem/N/result
mem_build() {
	local n=$1 d=$work/mem/$1 rc=0 t0 t1 kb pk
	t0=$(now_ns)
	if [[ -n $gnutime ]]; then
		"$gnutime" -f %M -o "$d/time" "$tingshu" build -v --force -j1 -o "$d/out" "$d/in" \
			2>"$d/log" || rc=$?
	else
		"$tingshu" build -v --force -j1 -o "$d/out" "$d/in" 2>"$d/log" || rc=$?
	fi
	t1=$(now_ns)
	kb=$(sed -n 's/.*largest worker peak memory: \([0-9]*\) KB.*/\1/p' "$d/log" | tail -n1)
	pk=-
	[[ -n $gnutime && -s $d/time ]] && pk=$(tail -n1 "$d/time")
	# does the WAV header agree with the file? (a RIFF file cannot hold 4 GB)
	local wav hdr=ok size dsz
	for wav in "$d"/out/*.wav; do
		[[ -f $wav && $(dd if="$wav" bs=1 skip=36 count=4 2>/dev/null) == data ]] || continue
		size=$(stat -c %s "$wav")
		dsz=$(od -An -tu4 -j40 -N4 "$wav" | tr -d ' ')
		((dsz == size - 44)) ||
			hdr=$(awk -v h="$dsz" -v f="$size" 'BEGIN{printf "%.0f/%.0f", h/44100, (f-44)/44100}')
	done
	rm -rf "$d/out"
	echo "$rc ${kb:--} $pk $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", (b-a)/1e9}') $hdr" \
		>"$d/result"
	log "memory: $n characters: exit $rc, worker ${kb:-?} KB, process $pk KB"
}

# espeak_mem N: eSpeak NG's own peak RSS on the same chapter
espeak_mem() {
	local d=$work/mem/$1
	"$gnutime" -f %M -o "$d/espeak-time" espeak-ng -v "$voice" -f "$d/in/01.txt" \
		-w "$d/espeak.wav" || return 0
	rm -f "$d/espeak.wav"
	log "memory: espeak-ng on $1 characters: $(tail -n1 "$d/espeak-time") KB"
}

# Two lanes side by side (RSS does not depend on the other lane): the
# largest chapter alone, the others and espeak-ng in the other lane.
espeak_n=50000
log "memory: building single chapters of ${mem_sizes[*]} characters (-j1 -v), two at a time"
largest=${mem_sizes[${#mem_sizes[@]} - 1]}
mem_build "$largest" &
lane_a=$!
(
	for n in "${mem_sizes[@]}"; do
		[[ $n == "$largest" ]] || mem_build "$n"
	done
	[[ -n $gnutime ]] && espeak_mem "$espeak_n"
	exit 0
) &
lane_b=$!
wait "$lane_a" || true
wait "$lane_b" || true

mem_fail=0 bad_wav=''
first_kb='' last_kb='' max_kb=0
declare -A mres=()
for n in "${mem_sizes[@]}"; do
	res=$(cat "$work/mem/$n/result" 2>/dev/null || echo "? - - - ok")
	mres[$n]=$res
	read -r st kb _ _ hdr <<<"$res"
	[[ $hdr == ok ]] || bad_wav+=" $n"
	if [[ $st != 0 || $kb == - ]]; then
		mem_fail=1
		continue
	fi
	[[ -z $first_kb ]] && first_kb=$kb
	last_kb=$kb
	((kb > max_kb)) && max_kb=$kb
done
espeak_kb=-
[[ -s $work/mem/$espeak_n/espeak-time ]] && espeak_kb=$(tail -n1 "$work/mem/$espeak_n/espeak-time")

if ((mem_fail == 0 && max_kb < 32768)); then vm=PASS; else vm=FAIL; failed=1; fi
if [[ -n $first_kb && -n $last_kb ]] && ((mem_fail == 0 && last_kb - first_kb <= 2048)); then
	vf=PASS
else
	vf=FAIL
	failed=1
fi

# ---- report ---------------------------------------------------------------

echo
echo "tingshu benchmark: $tingshu"
echo "eSpeak NG $(espeak-ng --version | awk '{print $4}'), voice $voice, $(nproc) cores," \
	"$(date '+%Y-%m-%d %H:%M')"
echo
echo "Speed: 2 chapters of $chars characters, $runs runs (seconds)"
printf '  %-36s %8s %8s %8s %8s\n' "" wall-med min max cpu-med
for name in es ep t1 t2; do
	printf '  %-36s %8.2f %8.2f %8.2f %8.2f\n' "${label[$name]}" "${med[$name]}" "${mn[$name]}" \
		"${mx[$name]}" "${mcpu[$name]}"
done
printf '  %-36s %8s %8s %17s\n' "ratio" wall-med min cpu-med
printf '  %-36s %8s %8s %17s   target <= 1.10  %s\n' "tingshu -j1 / espeak one at a time" \
	"$r1" "$r1min" "$r1cpu" "$v1"
printf '  %-36s %8s %8s %17s   target <= 1.05  %s\n' "tingshu -j2 / espeak side by side" \
	"$r2" "$r2min" "$r2cpu" "$v2"
if ((spread > 10)); then
	printf '  note: runs spread up to %s%% of the median: the machine was busy; run again\n' "$spread"
fi
printf '  audio made: espeak-ng %s s, tingshu %s s; -j1 and -j2 output %s\n' \
	"$audio_es" "$audio_ts" "$( ((j_differs)) && echo DIFFER || echo identical)"
echo
echo "Memory: one chapter, tingshu build -j1 -v (peak RSS, KB)"
printf '  %10s %12s %12s %9s %9s  %s\n' chars worker process "wall s" "chars/s" status
for n in "${mem_sizes[@]}"; do
	read -r st kb pk wall hdr <<<"${mres[$n]}"
	cps=$(awk -v n="$n" -v w="$wall" 'BEGIN{if (w+0 > 0) printf "%.0f", n/w; else print "-"}')
	if [[ $st != 0 ]]; then
		s="FAILED (exit $st)"
	elif [[ $hdr != ok ]]; then
		s="BAD WAV: header says ${hdr%/*} s, file holds ${hdr#*/} s"
	else
		s=ok
	fi
	printf '  %10s %12s %12s %9s %9s  %s\n' "$n" "$kb" "$pk" "$wall" "$cps" "$s"
	if [[ $st != 0 ]]; then
		grep -v 'largest worker' "$work/mem/$n/log" 2>/dev/null | tail -n3 | sed 's/^/             /'
	fi
done
printf '  %10s %12s   (espeak-ng -f on the same %s-character chapter)\n' espeak-ng "$espeak_kb" "$espeak_n"
printf '  largest worker peak %s KB           target < 32768 KB        %s\n' "$max_kb" "$vm"
if [[ -n $first_kb && -n $last_kb ]]; then
	printf '  growth %s -> %s chars: %+d KB  target <= +2048 KB       %s\n' \
		"${mem_sizes[0]}" "$largest" "$((last_kb - first_kb))" "$vf"
else
	printf '  growth %s -> %s chars: unknown                            %s\n' \
		"${mem_sizes[0]}" "$largest" "$vf"
fi
if [[ -n $bad_wav ]]; then
	failed=1
	printf '  audio files: WAV header wrong for%s characters                FAIL\n' "$bad_wav"
fi
echo
if ((failed)); then echo "result: FAIL"; else echo "result: PASS"; fi
exit "$failed"
