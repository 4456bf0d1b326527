#!/bin/bash
# e2e_pieces: with --book, a long chapter is spoken in pieces, each from
# the same eSpeak state (speech/speaker.h), so that a one-sentence edit in
# its first paragraph leaves the audio of the pieces after it as it was,
# sample for sample (shifted), and their AAC is copied, not encoded
# again.  Without --book the chapter is spoken whole, as before: eSpeak's
# state carries from sentence to sentence and the same edit changes
# nearly all that follows it (what the pieces are for).  Either reading
# is kept while the text is the same, with --book or without.  The edit
# built at -j2 is what a build from scratch at -j1 makes, byte for byte.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
T=$TINGSHU

# One chapter of about 2,000 characters (the simplified seed).
{
	echo '第一章 山路'
	cat "$SRC/seeds/004_5daa9d81391bddb7.txt"
} >book.txt
lines=$(wc -l <book.txt)
[ "$lines" -gt 10 ] || e2e_die "the seed has $lines lines"

# suffix A B: the share (0..1) of A's audio bytes that end B as well.
suffix() {
	python3 - "$1" "$2" <<'PY'
import sys, wave
a, b = (wave.open(p).readframes(10**9) for p in sys.argv[1:3])
n = 0
while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
    n += 1
print("%.3f" % (n / len(a)))
PY
}

build_twice() { # LABEL ARGS...: build, keep the audio, edit, build again
	local label=$1
	shift
	cp book.txt "$label.txt"
	run 0 "$label" "$T" build -q -j2 "$@" -o "$label" "$label.txt" || return 1
	wav_file=$(find "$label" -maxdepth 1 -name '*.wav' | head -n 1)
	[ -n "$wav_file" ] || { fail "$label: no chapter audio"; return 1; }
	cp "$wav_file" "$label.before.wav"
	sed -i '2s/。/，一句改了的话。/' "$label.txt"
	run 0 "${label}_edited" "$T" build -q -j2 "$@" -o "$label" "$label.txt" || return 1
	SHARE=$(suffix "$label.before.wav" "$wav_file")
}

build_twice pieces --book m4b || e2e_finish
fcmp "$SHARE >= 0.5" || fail "with --book, the edit left only $SHARE of the audio as it was (>= 0.5 expected: the pieces after the first)"
pass "with --book, an edit in the first paragraph keeps $SHARE of the chapter's samples"
build_twice whole || e2e_finish
fcmp "$SHARE < 0.3" || fail "without --book, the edit kept $SHARE of the audio: eSpeak's state no longer carries? (the pieces may be needless)"
pass "without --book, the chapter is spoken whole: the edit kept $SHARE"

# Either reading is kept while the text is the same: the chapter spoken
# in pieces is up to date without --book, the one spoken whole with it
# (its AAC is made from it; the M4B is there).
kept() { # LABEL DIR ARGS...: a build that leaves DIR's chapter audio as it was
	local label=$1 dir=$2 f ino
	shift 2
	f=$(find "$dir" -maxdepth 1 -name '*.wav' | head -n 1)
	ino=$(stat -c %i "$f")
	run 0 "$label" "$T" build -j2 "$@" -o "$dir" "$dir.txt" || return
	[ "$(stat -c %i "$f")" = "$ino" ] || fail "$label: the chapter was spoken again"
	grep -q "1 chapters up to date" "$RUN_ERR" || fail "$label: not up to date: $(tail -n 1 "$RUN_ERR")"
}
kept pieces_plain pieces
kept pieces_book_again pieces --book m4b
kept whole_book whole --book m4b
ls whole/*.m4b >/dev/null 2>&1 || fail "whole_book: no M4B made from the chapter spoken whole"

# -j1 makes from scratch what -j2 made by the edit, the M4B included (the
# same file name: the book's title is in the tags).
mkdir -p j1in
cp pieces.txt j1in/pieces.txt
run 0 j1 "$T" build -q -j1 --book m4b -o j1 j1in/pieces.txt
for f in $(cd pieces && ls *.wav *.m4b); do
	cmp -s "pieces/$f" "j1/$f" || fail "-j1 and -j2 made different $f"
done
e2e_finish
