#!/bin/bash
# e2e_formats: --format wav, flac and mp3 give files of the same length
# (to the sample), named and recorded as such, byte-identical for any -j;
# every file carries its tags (title, artist, album, track); --quality
# changes the size and is checked; an unknown format is a usage error.
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
[ "$(wav "$(find out-mp3-1 -name '*.mp3' | head -n 1)" major)" = MPEG ] || fail "mp3: not an MP3 file"

# Tags, in every format: title = the chapter, artist = --author, album =
# the book, track = its place (N/total in MP3, where that is the custom).
cp "$SRC/tests/e2e/data/short_book.txt" 三国.txt
for f in wav flac mp3; do
	run 0 "tags-$f" "$TINGSHU" build -q -j2 --format "$f" --author '罗贯中' -o "tags-$f" 三国.txt
	file=$(find "tags-$f" -name "002-*.$f" | head -n 1)
	[ -n "$file" ] || { fail "tags $f: no chapter 002 built"; continue; }
	track=2
	[ "$f" = mp3 ] && track=2/4
	for kv in "title=第二章 路上" "artist=罗贯中" "album=三国" "track=$track"; do
		got=$(wav "$file" "${kv%%=*}")
		[ "$got" = "${kv#*=}" ] || fail "tags $f: ${kv%%=*} is '$got', expected '${kv#*=}'"
	done
done

# --quality: 0 makes smaller MP3 than 10; out of range is a usage error.
run 0 mp3-q0 "$TINGSHU" build -q --format mp3 --quality 0 -o q0 三国.txt
run 0 mp3-q10 "$TINGSHU" build -q --format mp3 --quality 10 -o q10 三国.txt
s0=$(du -b q0/*.mp3 2>/dev/null | awk '{s += $1} END {print s + 0}')
s10=$(du -b q10/*.mp3 2>/dev/null | awk '{s += $1} END {print s + 0}')
if [ "$s0" -eq 0 ] || [ "$s0" -ge "$s10" ]; then
	fail "mp3: --quality 0 gives $s0 bytes, 10 gives $s10"
fi
for q in 11 -1 abc 2.5 ''; do
	run 2 "quality-$q" "$TINGSHU" build -q --quality "$q" -o out-bad-q ch.txt
	err_has "quality '$q'" "--quality takes a whole number from 0 to 10"
done
[ -e out-bad-q ] && fail "--quality: made an output folder for a usage error"

run 2 ogg "$TINGSHU" build -q --format ogg -o out-ogg ch.txt
err_has ogg "unknown format 'ogg'" "wav, flac, mp3"
[ -e out-ogg ] && fail "ogg: made an output folder for a usage error"
e2e_finish
