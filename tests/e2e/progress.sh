#!/bin/bash
# e2e_progress: the progress line on a terminal.  It shows the audio made
# and an ETA while chapters are spoken, and keeps moving while a chapter's
# file is put together again (loudness, limiter: a second pass when the
# first missed the target), with how far that has come; it is cleared at
# the end.  Without a terminal, or with -q,
# there is no progress line.  The terminal is a pseudo-terminal made by
# script(1) (util-linux).
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
command -v script >/dev/null 2>&1 || e2e_skip "script(1) is not installed (Debian: bsdutils)"

mkdir -p book
cp "$SRC"/seeds/*.txt book/

# A chapter the level of the voice's sample does not foresee (Latin words,
# read by another voice): it misses the target in one pass, and is
# measured and made again from its raw samples.
mkdir -p latin
{
	echo '第一章 英文'
	words=(the quick brown fox jumps over lazy dog while seven wizards hex bold jackdaws)
	for ((i = 0; i < 60; i++)); do
		line=
		for ((k = 0; k < 12; k++)); do
			line+="${words[(i * 7 + k * 5) % ${#words[@]}]} "
		done
		echo "${line% }."
	done
} >latin/01.txt

# on_tty NAME ARGS...: tingshu ARGS with stderr (and stdout) on a
# pseudo-terminal; what it printed is in logs/NAME.tty, its lines split at
# each carriage return.
on_tty() {
	local name=$1 cmd
	shift
	mkdir -p logs
	cmd=$(printf '%q ' "$TINGSHU" "$@")
	script -qec "$cmd" /dev/null >"logs/$name.raw" 2>&1
	RC=$?
	tr '\r' '\n' <"logs/$name.raw" | sed 's/\x1b\[K//g' >"logs/$name.tty"
	[ "$RC" -eq 0 ] || { fail "$name: exit code $RC"; head -n 20 "logs/$name.tty" >&2; }
}

# The default build: loudness on, leveled as the chapters are spoken.
on_tty default build -j1 -o out1 book
grep -q '^\[0/2 chapters\] .* of audio made, ETA ' logs/default.tty ||
	fail "default: no progress line with the audio made and an ETA"
# A chapter that takes a second pass: it is reported as it goes.
on_tty again build -j1 -v -o out5 latin
grep -q 'loudness: 1 of 1 chapters took more than one pass' logs/again.tty ||
	fail "again: the Latin chapter did not take a second pass: $(grep loudness logs/again.tty)"
fin=$(sed -n 's/.*finishing 1 chapter (\([0-9]*\)%).*/\1/p' logs/again.tty)
n=$(printf '%s\n' "$fin" | grep -c . || true)
# The chapter is minutes of audio: a report every 12 s of it.
[ "$n" -ge 10 ] || fail "again: $n reports of the second pass, expected at least 10"
# Within a chapter the figure only rises; it starts again at the next one.
printf '%s\n' "$fin" | awk 'NR > 1 && $1 < prev && prev < 90 { bad = 1 } { prev = $1 }
	END { exit bad }' || fail "again: the second pass went backwards: $(tr '\n' ' ' <<<"$fin")"
printf '%s\n' "$fin" | awk '$1 < 0 || $1 > 100 { exit 1 }' ||
	fail "again: a share outside 0-100%"
grep 'finishing 1 chapter' logs/again.tty | grep -qv ', ETA ' &&
	fail "again: a progress line without an ETA"
# The ETA is a duration, never negative.
grep -o 'ETA [^[]*' logs/default.tty | grep -qv -E '^ETA (--|[0-9.]+ s|[0-9]+ min [0-9]+ s|[0-9]+ h [0-9]+ min)$' &&
	fail "default: an ETA that is not a duration: $(grep -o 'ETA [^[]*' logs/default.tty | sort -u | head -3)"
# The progress line is cleared before the summary is printed.
grep -q $'\r\e\\[Ktingshu: built 2 of 2 chapters' logs/default.raw ||
	fail "default: the progress line was not cleared before the summary"
[ "$(jq -r '.chapters | length' out1/manifest.json 2>/dev/null)" = 2 ] ||
	fail "default: the build did not make its 2 chapters"

# Loudness off: no second pass, nothing to report of it.
on_tty plain build -j1 --loudness off -o out2 book
grep -q 'of audio made' logs/plain.tty || fail "plain: no progress line"
grep -q 'finishing' logs/plain.tty && fail "plain: a second pass was reported with loudness off"

# -q: nothing at all on the terminal.
on_tty quiet build -q -j1 -o out3 book
[ -s logs/quiet.raw ] && fail "quiet: printed $(head -c 200 logs/quiet.raw)"

# No terminal: no progress line (the summary only).
run 0 notty "$TINGSHU" build -j1 -o out4 book
grep -q 'chapters\]' "$RUN_ERR" && fail "notty: a progress line went to a file"
grep -q $'\r' "$RUN_ERR" && fail "notty: carriage returns in the log"

e2e_finish
