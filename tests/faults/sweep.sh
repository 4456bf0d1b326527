#!/bin/bash
# faults_sweep: tingshu under failing system calls and allocations, swept.
#
# For each scenario, each kind of call (write, rename, link, fsync, open
# with O_CREAT, malloc: see faultinject.c) and each process of the run
# (p the command, p.1 its worker, p.1.1 and p.1.2 the processes speaking
# chapters 1 and 2), the N-th call of that process is made to fail, for
# N = 1, 2, ... until a run in which the fault is not reached, which must
# succeed.  A first run of each scenario without faults counts the calls.
#
# Scenarios (a book of two tiny chapters, the second in GB18030 so that it
# is decoded into a temporary file in $TMPDIR; -j1):
#   force    build --force from the finished book
#   edit     build from the finished book, chapter 1 edited
#   empty    build into an empty folder
#   whole    build --book m4b,epub from the finished book: the whole-book
#            files alone
#   voices   build --dialogue voices into an empty folder, chapter 1 with
#            two speakers' quotations (spoken first into an unnamed
#            temporary file, O_TMPFILE in the output folder)
#   text     tingshu text of both chapters
#   pinyin   tingshu pinyin of both chapters
#
# Every run must end in success (exit 0) or a clear error (exit 1, 2 or
# 75 with a "tingshu: error:" line), never in a crash (a signal, a
# sanitizer report, or the process whose call failed killed by a signal:
# a worker's crash only shows as a chapter not built), leave no temporary
# file (.NAME.part-PID@HOST, a lock in .tingshu/locks, anything in its
# $TMPDIR), and leave the output folder
#   as before: every file (md5, the state in .tingshu included) as it was;
#   complete: every file as a clean build of the book makes it (so the
#     manifest says "complete": true and a rerun is up to date); or
#   partial (a failed build that finished some chapters, or some of the
#     whole-book files): each chapter's files (audio, timing, record) all
#     as before or all as a clean build makes them, the manifest and
#     playlist naming exactly the chapters whose audio is there and the
#     whole-book files there, "complete": false unless every chapter is
#     as the clean build's, and a rerun without faults gives the clean
#     build's bytes.
# A run that exits 0 must leave the book complete (text and pinyin: print
# what they print without faults).  Anything else is "damaged".  Each bad
# point is a line of SCRATCH_DIR/report.txt: scenario, kind, process, N,
# what the call was on (file, or bytes asked), and what went wrong.
#
# Coverage.  The calls made before main() (the libraries' constructors'
# allocations) and inside dlopen() (see faultinject.c) are not
# swept: libgomp's exits on its own, and N counts from main() on.
# By default (under ctest: a test per scenario, text and pinyin in one) a
# bounded sweep: in each process the first $D calls of a kind (default 6),
# $S more spread evenly up to its last call (default 6) and the last $L
# (default 3), writes failing with ENOSPC: a few hundred runs, short
# enough for CI's sanitizer build (where making a process is slow); what
# each scenario takes is in bench/README.md, "Figures that used to sit in
# code comments", and in the COST of tests/faults/CMakeLists.txt.
# TS_FAULTS_FULL=1: every N of every kind, but malloc beyond the first 300
# calls of a process only every TS_FAULTS_MALLOC_STRIDE-th (default 3: a
# build makes thousands of allocations, most of them in the command and in
# the worker starting eSpeak, and a run for each would take too long);
# writes also with EIO; and "sticky" faults (TS_FAULT_STICKY: the N-th call
# and all after it fail, a disk that stays full, memory that stays short)
# for write and malloc: even with a larger stride, many thousands of runs,
# for a machine to spare.  A sticky fault fails one process only: a disk
# that fills for the command alone, after the workers wrote chapters,
# leaves book files that cannot say so (on a real disk the workers' writes
# fail too).
#
# Usage: sweep.sh TINGSHU SRC_DIR LIBFAULTINJECT SCRATCH_DIR [SCENARIO...]
# Environment: TS_FAULTS_FULL=1; TS_FAULTS_VERBOSE=1 (every outcome into
# the report, "OK OUTCOME: ..." with the start of stderr); TS_FAULTS_SCENARIOS, TS_FAULTS_KINDS
# (space-separated subsets); TS_FAULTS_DENSE, TS_FAULTS_SAMPLES,
# TS_FAULTS_LAST (D, S, L);
# TS_FAULTS_N: these N only, in every process (to run a point again).
# Under AddressSanitizer, ASAN_OPTIONS gets verify_asan_link_order=0 (the
# preloaded library comes before ASan's runtime).
. "$(dirname "$0")/../e2e/lib.sh"
need_jq

if [ $# -lt 4 ]; then
	echo "usage: $0 TINGSHU SRC_DIR LIBFAULTINJECT SCRATCH_DIR" >&2
	exit 2
fi
T=$(realpath "$1")
SHIM=$(realpath "$3")
W=$4
[ -x "$T" ] || e2e_die "tingshu binary $T is missing"
[ -f "$SHIM" ] || e2e_die "fault injection library $SHIM is missing"
case "$W" in
*/faults*) ;;
*) e2e_die "refusing to use $W as scratch dir (expected a path with /faults in it)" ;;
esac
rm -rf "$W"
mkdir -p "$W" || e2e_die "cannot make $W"
W=$(realpath "$W")
cd "$W" || exit 1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
# The fault library's backtrace() (whose call failed) makes the dynamic
# loader open libgcc_s, which LeakSanitizer takes for a leak of 56 bytes
# in _dl_map_object_deps: the loader's, not tingshu's.  And libzip's
# zip_close() (the EPUB) asks OpenSSL for random bytes (zip_secure_random,
# RAND_bytes_ex), whose first call sets up its generators: when one of
# those allocations fails, OpenSSL reports the error and leaks what it had
# allocated so far (39 bytes, CRYPTO_zalloc and CRYPTO_strndup); tingshu
# never calls libcrypto itself.
printf '%s\n' 'leak:_dl_map_object_deps' 'leak:libcrypto.so' >"$W/lsan.supp"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$W/lsan.supp"
START=$SECONDS

FULL=${TS_FAULTS_FULL:-0}
D=${TS_FAULTS_DENSE:-6}
S=${TS_FAULTS_SAMPLES:-6}
L=${TS_FAULTS_LAST:-3}
MALLOC_STRIDE=${TS_FAULTS_MALLOC_STRIDE:-3}
SCENARIOS=${TS_FAULTS_SCENARIOS:-${*:5}}
SCENARIOS=${SCENARIOS:-force edit empty text pinyin}
KINDS=${TS_FAULTS_KINDS:-write rename link fsync open malloc}

# --- the book ------------------------------------------------------------------
mkdir book.orig book.edit tmp
printf '第一章 开始\n天刚亮，村口的老槐树下站着一个少年。\n' >book.orig/1.txt
printf '第二章 山路\n他背着包袱，望着远方的山路。\n' | iconv -f UTF-8 -t GB18030 >book.orig/2.txt
cp book.orig/2.txt book.edit/2.txt
mkdir book.voices
cp book.orig/2.txt book.voices/2.txt
printf '第一章 开始\n王夫人笑道：“今天天气真好。”宝玉道：“我也去。”众人都去了。\n' >book.voices/1.txt
printf '第一章 开始\n天刚亮，村口的老槐树下站着一个少年。他回头看了一眼。\n' >book.edit/1.txt
BOOK=
use_book() {
	[ "$BOOK" = "$1" ] && return
	rm -rf book && cp -r "book.$1" book && BOOK=$1
}

# same A B: the two files hold the same text (bash reads them itself).
same() {
	[[ $(<"$1") == "$(<"$2")" ]]
}

# md5 of every file of a folder, the state included; temporaries and locks
# are checked apart.
snap() {
	[ -d "$1" ] || { : >"$2"; return; }
	(cd "$1" && find . -type f ! -path './.tingshu/locks/*' ! -name '.*.part-*' -printf '%P\n' |
		LC_ALL=C sort | xargs -r -d '\n' md5sum) >"$2"
}

# Reference folders: the finished book, and the edited book built clean.
use_book orig
"$T" build -q -j1 -o ref.orig book >logs.ref 2>&1 || e2e_die "the book does not build: $(cat logs.ref)"
snap ref.orig ref.orig.md5
use_book edit
"$T" build -q -j1 -o ref.edit book >logs.ref 2>&1 || e2e_die "the edited book does not build"
snap ref.edit ref.edit.md5
use_book orig
cp -a ref.orig ref.whole
"$T" build -q -j1 --book m4b,epub -o ref.whole book >logs.ref 2>&1 || e2e_die "the whole-book files are not made: $(cat logs.ref)"
snap ref.whole ref.whole.md5
use_book voices
"$T" build -q -j1 --dialogue voices -o ref.voices book >logs.ref 2>&1 || e2e_die "the book does not build with voices: $(cat logs.ref)"
snap ref.voices ref.voices.md5
use_book orig
"$T" text book/1.txt book/2.txt >ref.text 2>logs.ref || e2e_die "text fails: $(cat logs.ref)"
"$T" pinyin book/1.txt book/2.txt >ref.pinyin 2>logs.ref || e2e_die "pinyin fails"
[ -s ref.text ] && [ -s ref.pinyin ] || e2e_die "text or pinyin printed nothing"

# --- one run -----------------------------------------------------------------------
# scen_prepare SCEN: the folder and inputs before a run; sets CMD, BEFORE
# (snapshot of the folder before) and TARGET (the clean build's).
scen_prepare() {
	rm -rf out tmp && mkdir tmp
	HEAL=() # what the rerun that heals adds to a plain build
	case $1 in
	force)
		use_book orig
		cp -a ref.orig out
		CMD=(build -j1 --force -o out book) BEFORE=ref.orig.md5 TARGET=ref.orig.md5
		;;
	edit)
		use_book edit
		cp -a ref.orig out
		CMD=(build -j1 -o out book) BEFORE=ref.orig.md5 TARGET=ref.edit.md5
		;;
	whole)
		use_book orig
		cp -a ref.orig out
		CMD=(build -j1 --book m4b,epub -o out book) BEFORE=ref.orig.md5 TARGET=ref.whole.md5
		HEAL=(--book m4b,epub)
		;;
	empty)
		use_book orig
		CMD=(build -j1 -o out book) BEFORE=empty.md5 TARGET=ref.orig.md5
		: >empty.md5
		;;
	voices)
		use_book voices
		CMD=(build -j1 --dialogue voices -o out book) BEFORE=empty.md5 TARGET=ref.voices.md5
		HEAL=(--dialogue voices)
		: >empty.md5
		;;
	text | pinyin)
		use_book orig
		CMD=("$1" book/1.txt book/2.txt) BEFORE= TARGET=ref.$1
		;;
	esac
}

# Making a process costs milliseconds on some machines (CI's among them),
# and a point used to start about ninety of them besides tingshu's own:
# what can be read with bash's builtins is (and a function called in $(...)
# is a process too).  first_line PATTERN ARRAY...: sets FIRST to the first
# element that matches the bash pattern, or "".
first_line() {
	local pat=$1 l
	shift
	FIRST=
	for l in "$@"; do
		# shellcheck disable=SC2053 # (a pattern)
		[[ $l == $pat ]] || continue
		FIRST=$l
		return
	done
}

# run_faulted KIND N PROC ERRNO STICKY: the command under the library.
# Sets RC, FIRED (the "fired" line, or ""), and FLOG and RUNERR: the lines
# of fault.log and of the command's stderr.
run_faulted() {
	: >fault.log # (the library appends to it)
	# (The braces keep bash from announcing a process killed by a signal.)
	{ TS_FAULT_KIND="$1" TS_FAULT_N="$2" TS_FAULT_PROC="$3" TS_FAULT_ERRNO="$4" \
		TS_FAULT_STICKY="$5" TS_FAULT_LOG="$W/fault.log" TMPDIR="$W/tmp" \
		LD_PRELOAD="$SHIM${LD_PRELOAD:+:$LD_PRELOAD}" "$T" "${CMD[@]}" >run.out 2>run.err; } 2>/dev/null
	RC=$?
	mapfile -t FLOG <fault.log
	mapfile -t RUNERR <run.err
	first_line 'fired *' "${FLOG[@]}"
	FIRED=$FIRST
}

# chapters BEFORE TARGET NOW: the chapters' files of three snapshots (a
# chapter's: NNN-* and .tingshu/chapters/NNN-*, compared as sets of md5s).
# Prints "bad NNN" for each chapter whose files in NOW are neither all as
# in BEFORE nor all as in TARGET, and "all-target" when NOW's chapters are
# all TARGET's.
chapters() {
	awk '
	function put(list, x,   n, a, i, out, done) { # x into the sorted list
		if (list == "") return x
		n = split(list, a, " ")
		for (i = 1; i <= n; i++) {
			if (!done && (x "") < (a[i] "")) { out = out " " x; done = 1 }
			out = out " " a[i]
		}
		if (!done) out = out " " x
		return substr(out, 2)
	}
	{
		path = substr($0, 35)
		if (path ~ /^\.tingshu\/chapters\/[0-9][0-9][0-9]-/) c = substr(path, 19, 3)
		else if (path ~ /^[0-9][0-9][0-9]-/) c = substr(path, 1, 3)
		else next
		files[f, c] = put(files[f, c], substr($0, 1, 32))
		seen[c] = 1
	}
	END {
		all = 1
		for (c in seen) {
			if (files[3, c] != files[1, c] && files[3, c] != files[2, c]) print "bad " c
			if (files[3, c] != files[2, c]) all = 0
		}
		if (all) print "all-target"
	}' f=1 "$1" f=2 "$2" f=3 "$3" # (f counts empty files too)
}

# judge_folder: how the folder is after a failed or successful build.
# Sets STATE (before, complete, partial, damaged) and WHY.
judge_folder() {
	snap out now.md5
	WHY=
	if same now.md5 "$TARGET"; then
		STATE=complete
		return
	fi
	if same now.md5 "$BEFORE"; then
		STATE=before
		return
	fi
	# A chapter's files all as before or all as the clean build's.
	local line all_target=""
	while read -r line; do
		case $line in
		"bad "*) WHY="${WHY:+$WHY; }chapter ${line#bad }: its files are neither all as before nor all new" ;;
		all-target) all_target=1 ;;
		esac
	done < <(chapters "$BEFORE" "$TARGET" now.md5)
	# The book files name exactly the chapters there.  Each list sorted,
	# one name a line ending in a newline, from one sorted stream of tagged
	# lines: A the audio there, L the manifest's chapters, P the playlist's,
	# B the whole-book files there, K the manifest's book_files, C the
	# manifest's "complete".
	local -A got=([A]="" [L]="" [P]="" [B]="" [K]="" [C]="")
	while IFS= read -r line; do
		got[${line%% *}]+="${line#? }"$'\n'
	done < <({
		find out -maxdepth 1 \( -name '[0-9][0-9][0-9]-*.wav' -printf 'A %P\n' \) -o \
			\( \( -name '*.m4b' -o -name '*.epub' \) -printf 'B %P\n' \) 2>/dev/null
		[ ! -e out/manifest.json ] ||
			jq -r '(.chapters[].audio | "L " + .), (.book_files[]? | "K " + .), "C \(.complete)"' \
				out/manifest.json 2>/dev/null
		sed -n '/^#/!s/^/P /p' out/playlist.m3u 2>/dev/null
	} | LC_ALL=C sort)
	local k
	local -A shown=() # (the lists as words)
	for k in A L P B K; do
		shown[$k]=${got[$k]%$'\n'}
		shown[$k]=${shown[$k]//$'\n'/ }
	done
	if [ -n "${got[A]}" ] || [ -e out/manifest.json ]; then
		[ "${got[L]}" = "${got[A]}" ] || WHY="${WHY:+$WHY; }manifest lists [${shown[L]}], audio there [${shown[A]}]"
		[ "${got[P]}" = "${got[A]}" ] || WHY="${WHY:+$WHY; }playlist lists [${shown[P]}], audio there [${shown[A]}]"
		# "complete" speaks of the chapters: false while any is not as
		# the clean build's.  (When they all are, a whole-book file may
		# still be missing, and is then not listed; and a build that
		# could not read an input says false all the same.)
		[ -n "$all_target" ] || [ "${got[C]}" = $'false\n' ] ||
			WHY="${WHY:+$WHY; }the manifest of a book not as built says complete: ${got[C]%$'\n'}"
		[ "${got[B]}" = "${got[K]}" ] ||
			WHY="${WHY:+$WHY; }the manifest's book_files list [${shown[K]}], the folder holds [${shown[B]}]"
	fi
	# A rerun heals.
	if "$T" build -q -j1 "${HEAL[@]}" -o out book >heal.out 2>heal.err; then
		snap out heal.md5
		same heal.md5 "$TARGET" || WHY="${WHY:+$WHY; }a rerun does not give a clean build's files: $(diff "$TARGET" heal.md5 | grep '^[<>]' | head -3 | tr '\n' ' ')"
	else
		WHY="${WHY:+$WHY; }a rerun fails: $(head -2 heal.err | tr '\n' ' ')"
	fi
	STATE=partial
	[ -z "$WHY" ] || STATE=damaged
}

# point SCEN KIND PROC N ERRNO STICKY: run and judge one point.  Sets
# OUTCOME (success, error-RC, or the worst of crash, damaged, leftover,
# unclear) and PROBLEMS (every problem seen, for the report).
point() {
	local scen=$1 err left
	scen_prepare "$scen"
	run_faulted "$2" "$4" "$3" "$5" "$6"
	PROBLEMS=()
	first_line 'tingshu: error: *' "${RUNERR[@]}"
	err=$FIRST
	# Whose call failed, and in which file (see faultinject.c).
	local fproc fpid from segv l sanitizer="" other_report="" counted="" frame=""
	read -r _ fproc _ _ _ fpid _ <<<"$FIRED"
	first_line "from $fproc *" "${FLOG[@]}"
	from=${FIRST#"from $fproc "}
	# Its counts in the log: it ended by exit() or _exit().
	first_line "count $fproc $fpid *" "${FLOG[@]}"
	[ -z "$FIRST" ] || counted=1
	# A sanitizer's report, the first frame of a stack outside the C
	# library, and the processes with a SEGV report (their pids).
	local -A segv_pids=()
	for l in "${RUNERR[@]}"; do
		[[ $l == *Sanitizer* || $l == *'runtime error:'* ]] && sanitizer=1
		[[ $l == *'runtime error:'* || $l == *LeakSanitizer* ]] && other_report=1
		[ -z "$frame" ] && [[ $l =~ ^\ *#[0-9]+\  ]] && [[ $l != *sysdeps* && $l != *libc.so* && $l != *libc-* ]] &&
			frame=$l
		[[ $l =~ ^==([0-9]*)==ERROR:\ AddressSanitizer:\ SEGV ]] && segv_pids[${BASH_REMATCH[1]}]=1
	done
	segv=${!segv_pids[*]} # (equal to a pid only when it is the one)
	CONTAINED=
	# A child process may die in a library that crashes rather than
	# fails (eSpeak NG, uchardet, the dynamic loader): tingshu makes such
	# calls in a child of their own, or a worker, to contain that; the run
	# must then end in a clear error.  Counted apart ("contained").  Under AddressSanitizer
	# that death is its SEGV report, from that process, in that library.
	if [ -n "$FIRED" ] && [ "$fproc" != p ] && [ "$RC" -ne 0 ] && [ "$RC" -lt 128 ] &&
		[ -n "$err" ] && [ -n "$from" ] && [ "$from" != "?" ] && [ "$from" != "${T##*/}" ]; then
		# (The SEGV in the library itself: its first frame outside the
		# C library.)
		if [ "$segv" = "$fpid" ] && [[ $frame == *"$from"* ]] && [ -z "$other_report" ]; then
			CONTAINED=$from
		elif [ -z "$segv" ] && [ -z "$counted" ] && [ -z "$sanitizer" ]; then
			CONTAINED=$from
		fi
	fi
	if [ -n "$CONTAINED" ]; then
		:
	elif [ "$RC" -ge 128 ] || [ -n "$sanitizer" ]; then
		PROBLEMS+=("crash: exit $RC: $(grep -m3 'Sanitizer\|runtime error\|terminate\|what()\|error' run.err | tr '\n' ' ')")
	elif [ "$RC" -ne 0 ] && [ -z "$err" ]; then
		PROBLEMS+=("unclear: exit $RC without a 'tingshu: error:' line; stderr: $(head -c 300 run.err | tr '\n' ' ')")
	elif ! [[ $RC =~ ^(0|1|2|75)$ ]]; then
		PROBLEMS+=("unclear: exit $RC")
	fi
	# The process that failed the call ended without exit() or _exit()
	# (its counts are not in the log): killed by a signal.
	if [ -z "$CONTAINED" ] && [ -n "$FIRED" ] && [ "$RC" -lt 128 ] && [ -z "$counted" ]; then
		PROBLEMS+=("crash: process $fproc (pid $fpid) was killed by a signal after the fault (in ${from:-?})")
	fi
	# Temporaries: in the folder, locks, $TMPDIR.
	left=$(find out tmp -mindepth 1 \( -name '.*.part-*' -o -path 'out/.tingshu/locks/*' -o \
		-path 'tmp/*' \) -print 2>/dev/null)
	[ -z "$left" ] || PROBLEMS+=("leftover: $(echo $left)")
	case $scen in
	text | pinyin)
		if [ "$RC" -eq 0 ] && ! cmp -s run.out "$TARGET"; then
			PROBLEMS+=("damaged: exit 0, but the output differs from a run without faults")
		fi
		;;
	*)
		if [ "$RC" -lt 128 ]; then
			judge_folder
			if [ "$RC" -eq 0 ] && [ "$STATE" != complete ]; then
				PROBLEMS+=("damaged: exit 0, but the folder is $STATE${WHY:+: $WHY}")
			elif [ "$STATE" = damaged ]; then
				PROBLEMS+=("damaged: $WHY")
			fi
		fi
		;;
	esac
	[ -z "$err" ] || PROBLEMS+=("stderr: $err")
	OUTCOME=success
	[ "$RC" -eq 0 ] || OUTCOME=error-$RC
	[ -z "$CONTAINED" ] || OUTCOME=contained
	local worst p
	for worst in unclear leftover damaged crash; do
		for p in "${PROBLEMS[@]}"; do
			[[ $p == "$worst:"* ]] && OUTCOME=$worst
		done
	done
	# eSpeak NG's own: an allocation of its that fails and that it does
	# not report (it sets up the voice anyway: DoVoiceChange(), a voice
	# file's fopen() in LoadVoice()), so that the audio comes out other
	# than it should, with nothing to tell.  Not tingshu's to mend: listed
	# apart (UPSTREAM lines), not counted as bad.
	if [ "$OUTCOME" = damaged ] && [ "$RC" -eq 0 ] && [[ $from == libespeak-ng* ]]; then
		OUTCOME=upstream
	fi
}

# --- the sweep ---------------------------------------------------------------------
# The N to try in a process whose calls FIRST to LAST of KIND are swept.
points() {
	local kind=$1 first=$2 last=$3 n count=$(($3 - $2 + 1))
	if [ -n "${TS_FAULTS_N:-}" ]; then
		for n in $TS_FAULTS_N; do
			[ "$n" -ge "$first" ] && [ "$n" -le "$last" ] && echo "$n"
		done
	elif [ "$FULL" = 1 ]; then
		if [ "$kind" = malloc ] && [ "$count" -gt 300 ]; then
			seq "$first" $((first + 299))
			seq $((first + 299)) "$MALLOC_STRIDE" "$last" | tail -n +2
			echo "$last"
		else
			seq "$first" "$last"
		fi
	else
		seq "$first" $((first - 1 + (count < D ? count : D)))
		if [ "$count" -gt "$D" ]; then
			for ((n = 1; n <= S; n++)); do
				echo $((first - 1 + D + (count - D) * n / S))
			done
		fi
		# The last calls: where files are finished, renamed, recorded.
		seq $((last - L + 1 > first ? last - L + 1 : first)) "$last"
	fi | sort -n | awk '!seen[$0]++'
}

declare -A TOTAL BAD_COUNT
BAD=0
UPSTREAM=0
REPORT=$W/report.txt
: >"$REPORT"

# The calls of KIND each process of the census made (the first process's
# count from main() on): "PROC FIRST LAST".
calls() {
	local census=$1 kind=$2
	awk -v kind="$kind" '
		{ for (i = 4; i <= NF; i++) { split($i, kv, "="); if (kv[1] == kind) v = kv[2] } }
		$1 == "count" { last[$2] = v; order[++n] = $2 }
		END { for (i = 1; i <= n; i++) { p = order[i]; print p, 1, last[p] } }
	' "$census"
}

# sweep SCEN KIND ERRNO STICKY: every process, every N.
sweep() {
	local scen=$1 kind=$2 errno=$3 sticky=$4 proc first last n
	local label="$scen $kind${errno:+ $errno}${sticky:+ sticky}"
	declare -A out=()
	local pts=0
	while read -r proc first last; do
		[ "$last" -ge "$first" ] || continue
		for n in $(points "$kind" "$first" "$last") $((last + 1)); do
			point "$scen" "$kind" "$proc" "$n" "$errno" "$sticky"
			if [ -z "$FIRED" ]; then
				if [ "$n" -le "$last" ]; then
					fail "$label: $proc: call $n of $last was not reached (the count differs from run to run?)"
				elif [ "$OUTCOME" != success ]; then
					fail "$label: $proc: with no fault ($n > $last calls): ${PROBLEMS[*]}"
				fi
				continue
			fi
			pts=$((pts + 1))
			out[$OUTCOME]=$((${out[$OUTCOME]:-0} + 1))
			TOTAL[$kind]=$((${TOTAL[$kind]:-0} + 1))
			case $OUTCOME in
			success | error-* | contained)
				[ "${TS_FAULTS_VERBOSE:-0}" = 0 ] ||
					printf 'OK %s: %s: %s call %s (%s): %s\n' "$OUTCOME" "$label" "$proc" "$n" \
						"$(cut -d' ' -f7- <<<"$FIRED")" "$(head -c 200 run.err | tr '\n' ' ')"
				;;
			upstream)
				UPSTREAM=$((UPSTREAM + 1))
				printf 'UPSTREAM: %s: %s call %s (%s): %s\n' "$label" "$proc" "$n" \
					"$(cut -d' ' -f7- <<<"$FIRED")" "${PROBLEMS[0]}"
				;;
			*)
				BAD=$((BAD + 1))
				BAD_COUNT[$kind]=$((${BAD_COUNT[$kind]:-0} + 1))
				printf 'FAIL: %s: %s call %s (%s): ' "$label" "$proc" "$n" "$(cut -d' ' -f7- <<<"$FIRED")"
				printf '%s | ' "${PROBLEMS[@]}"
				echo
				;;
			esac
		done >>"$REPORT"
	done < <(calls "census.$scen" "$kind")
	local o summary=""
	for o in success error-1 error-2 error-75 contained upstream crash unclear leftover damaged; do
		summary="$summary, $o ${out[$o]:-0}"
	done
	for o in "${!out[@]}"; do
		case $o in success | error-1 | error-2 | error-75 | contained | upstream | crash | unclear | leftover | damaged) ;;
		*) summary="$summary, $o ${out[$o]}" ;; esac
	done
	printf 'faults: %-24s %4d points: %s\n' "$label" "$pts" "${summary#, }"
}

for scen in $SCENARIOS; do
	# The census: how many calls of each kind each process makes.
	scen_prepare "$scen"
	run_faulted "" 0 p "" ""
	[ "$RC" = 0 ] || e2e_die "$scen: the run without faults fails (exit $RC): $(head -3 run.err)"
	cp fault.log "census.$scen"
	echo "census $scen: $(sed -n 's/^count //p' "census.$scen" | sed 's/ [0-9]* / /' | sort | tr '\n' ';')" \
		"before main: $(sed -n 's/^main p [0-9]* //p' "census.$scen")"
	for kind in $KINDS; do
		if [ -z "$(calls "census.$scen" "$kind" | awk '$3 >= $2')" ]; then
			printf 'faults: %-24s %4d points: tingshu makes no such call here\n' "$scen $kind" 0
			continue
		fi
		sweep "$scen" "$kind" "" ""
		if [ "$FULL" = 1 ]; then
			[ "$kind" = write ] && sweep "$scen" write EIO ""
			[ "$kind" = write ] || [ "$kind" = malloc ] && sweep "$scen" "$kind" "" 1
		fi
	done
done

echo
for kind in $KINDS; do
	echo "faults: $kind: ${TOTAL[$kind]:-0} points, ${BAD_COUNT[$kind]:-0} bad"
done
echo "faults: $((SECONDS - START)) s"
if [ "$UPSTREAM" -gt 0 ]; then
	echo "faults: $UPSTREAM outcomes are eSpeak NG's own (not counted as bad):"
	grep '^UPSTREAM' "$REPORT" | head -n 5
fi
if [ "$BAD" -gt 0 ]; then
	echo "$BAD bad outcomes (all in $REPORT):" >&2
	grep '^FAIL' "$REPORT" | head -n 40 >&2
	E2E_FAILS=$((E2E_FAILS + BAD))
fi
e2e_finish
