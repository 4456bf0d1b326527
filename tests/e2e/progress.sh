#!/bin/bash
# e2e_progress: the progress line on a terminal.  It shows the audio made
# and an ETA while chapters are spoken, and keeps moving while a chapter's
# file is put together (loudness, limiter: the second pass), with how far
# that has come; it is cleared at the end.  Without a terminal, or with -q,
# there is no progress line.  The terminal is a pseudo-terminal made by
# script(1) (util-linux).
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
command -v script >/dev/null 2>&1 || e2e_skip "script(1) is not installed (Debian: bsdutils)"

mkdir -p book
cp "$SRC"/seeds/*.txt book/

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

# The default build: loudness on, so each chapter has a second pass.
on_tty default build -j1 -o out1 book
grep -q '^\[0/2 chapters\] .* of audio made, ETA ' logs/default.tty ||
	fail "default: no progress line with the audio made and an ETA"
fin=$(sed -n 's/.*finishing 1 chapter (\([0-9]*\)%).*/\1/p' logs/default.tty)
n=$(printf '%s\n' "$fin" | grep -c . || true)
# Each seed chapter is several minutes of audio: a report every 12 s of it.
[ "$n" -ge 10 ] || fail "default: $n reports of the second pass, expected at least 10"
# Within a chapter the figure only rises; it starts again at the next one.
printf '%s\n' "$fin" | awk 'NR > 1 && $1 < prev && prev < 90 { bad = 1 } { prev = $1 }
	END { exit bad }' || fail "default: the second pass went backwards: $(tr '\n' ' ' <<<"$fin")"
printf '%s\n' "$fin" | awk '$1 < 0 || $1 > 100 { exit 1 }' ||
	fail "default: a share outside 0-100%"
grep 'finishing 1 chapter' logs/default.tty | grep -qv ', ETA ' &&
	fail "default: a progress line without an ETA"
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
