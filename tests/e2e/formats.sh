#!/bin/bash
# e2e_formats: --format wav, flac and mp3 give files of the same length
# (to the sample), named and recorded as such, byte-identical for any -j;
# an unknown format is a usage error.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq

cp "$SRC/seeds/004_5daa9d81391bddb7.txt" ch.txt
run 0 wav "$TINGSHU" build -q -j1 -o out-wav ch.txt
wav_file=$(find out-wav -name '*.wav' | head -n 1)
[ -n "$wav_file" ] || e2e_die "no WAV file built"
want_frames=$(wav "$wav_file" frames)

for f in flac mp3; do
	run 0 "$f-j1" "$TINGSHU" build -q -j1 --format "$f" -o "out-$f-1" ch.txt
	run 0 "$f-j2" "$TINGSHU" build -q -j2 --format "$f" -o "out-$f-2" ch.txt
	file=$(find "out-$f-1" -name "*.$f" | head -n 1)
	[ -n "$file" ] || { fail "$f: no .$f file in out-$f-1"; continue; }
	[ "$(jq -r '.settings.format' "out-$f-1/manifest.json")" = "$f" ] ||
		fail "$f: manifest settings.format is not $f"
	[ "$(jq -r '.chapters[0].audio' "out-$f-1/manifest.json")" = "$(basename "$file")" ] ||
		fail "$f: manifest audio is not $(basename "$file")"
	grep -qF "$(basename "$file")" "out-$f-1/playlist.m3u" || fail "$f: playlist does not list $file"
	got=$(wav "$file" frames)
	[ "$got" = "$want_frames" ] || fail "$f: $got frames, the WAV build has $want_frames"
	fcmp "$(wav "$file" rms_dbfs) > -40" || fail "$f: too quiet, not speech"
	cmp -s "$file" "out-$f-2/$(basename "$file")" || fail "$f: -j1 and -j2 files differ"
	no_temp_files "out-$f-1" "$f"
done
[ "$(wav "$(find out-flac-1 -name '*.flac' | head -n 1)" major)" = FLAC ] || fail "flac: not a FLAC file"

run 2 ogg "$TINGSHU" build -q --format ogg -o out-ogg ch.txt
err_has ogg "unknown format 'ogg'" "wav, flac, mp3"
[ -e out-ogg ] && fail "ogg: made an output folder for a usage error"
e2e_finish
