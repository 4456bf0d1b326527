#!/bin/bash
# e2e_formats: --format wav, flac, ogg and mp3 give files that decode to
# the length of the WAV (flac and mp3 to the sample, ogg within 20 ms),
# named and recorded as such, byte-identical for any -j and from run to
# run; every file carries its tags (title, artist, album, track);
# --quality changes the size and is checked; opus is resampled to 48 kHz
# (and --sample-rate 44100 with it is a usage error); an unknown format is
# a usage error.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq

cp "$SRC/seeds/004_5daa9d81391bddb7.txt" ch.txt
run 0 wav "$TINGSHU" build -q -j1 -o out-wav ch.txt
wav_file=$(find out-wav -name '*.wav' | head -n 1)
[ -n "$wav_file" ] || e2e_die "no WAV file built"
want_frames=$(wav "$wav_file" frames)
want_s=$(wav "$wav_file" duration_s)

for f in flac ogg mp3; do
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
	got_s=$(wav "$file" duration_s)
	case $f in
	ogg) fcmp "$got_s - $want_s <= 0.020 && $want_s - $got_s <= 0.020" ||
		fail "$f: lasts $got_s s, the WAV build $want_s s (more than 20 ms apart)" ;;
	*) [ "$got" = "$want_frames" ] || fail "$f: $got frames, the WAV build has $want_frames" ;;
	esac
	fcmp "$(wav "$file" rms_dbfs) > -40" || fail "$f: too quiet, not speech"
	cmp -s "$file" "out-$f-2/$(basename "$file")" || fail "$f: -j1 and -j2 files differ"
	no_temp_files "out-$f-1" "$f"
done
[ "$(wav "$(find out-flac-1 -name '*.flac' | head -n 1)" major)" = FLAC ] || fail "flac: not a FLAC file"
ogg_file=$(find out-ogg-1 -name '*.ogg' | head -n 1)
[ "$(wav "$ogg_file" major)/$(wav "$ogg_file" subtype)" = OGG/VORBIS ] || fail "ogg: not Ogg Vorbis"
[ "$(wav "$(find out-mp3-1 -name '*.mp3' | head -n 1)" major)" = MPEG ] || fail "mp3: not an MP3 file"

# Ogg from one run to the next: libsndfile numbers each stream at random,
# tingshu numbers it from the file name.
run 0 ogg-again "$TINGSHU" build -q -j1 --format ogg -o out-ogg-3 ch.txt
cmp -s "$ogg_file" "out-ogg-3/$(basename "$ogg_file")" || fail "ogg: two runs give different files"

# Tags, in every format (opus too): title = the chapter, artist = --author, album =
# the book, track = its place (N/total in MP3, where that is the custom).
cp "$SRC/tests/e2e/data/short_book.txt" 三国.txt
for f in wav flac ogg mp3 opus; do
	run 0 "tags-$f" "$TINGSHU" build -q -j2 --format "$f" --author '罗贯中' -o "tags-$f" 三国.txt
	file=$(find "tags-$f" -name "002-*.$f" | head -n 1)
	[ -n "$file" ] || { fail "tags $f: no chapter 002 built"; continue; }
	[ "$(jq -r '.settings.author' "tags-$f/manifest.json")" = 罗贯中 ] ||
		fail "tags $f: manifest settings.author is not 罗贯中"
	track=2
	[ "$f" = mp3 ] && track=2/4
	for kv in "title=第二章 路上" "artist=罗贯中" "album=三国" "track=$track"; do
		got=$(wav "$file" "${kv%%=*}")
		[ "$got" = "${kv#*=}" ] || fail "tags $f: ${kv%%=*} is '$got', expected '${kv#*=}'"
	done
done

# --quality: 0 makes smaller Vorbis than 10; out of range is a usage error.
run 0 ogg-q0 "$TINGSHU" build -q --format ogg --quality 0 -o q0 三国.txt
run 0 ogg-q10 "$TINGSHU" build -q --format ogg --quality 10 -o q10 三国.txt
s0=$(du -b q0/*.ogg 2>/dev/null | awk '{s += $1} END {print s + 0}')
s10=$(du -b q10/*.ogg 2>/dev/null | awk '{s += $1} END {print s + 0}')
[ "$(jq -r '.settings.quality' q10/manifest.json)" = 10 ] || fail "ogg: manifest quality is not 10"
if [ "$s0" -eq 0 ] || [ "$s0" -ge "$s10" ]; then
	fail "ogg: --quality 0 gives $s0 bytes, 10 gives $s10"
fi
for q in 11 -1 abc 2.5 ''; do
	run 2 "quality-$q" "$TINGSHU" build -q --quality "$q" -o out-bad-q ch.txt
	err_has "quality '$q'" "--quality takes a whole number from 0 to 10"
done
[ -e out-bad-q ] && fail "--quality: made an output folder for a usage error"

# Opus takes 8, 12, 16, 24 or 48 kHz; eSpeak makes 22,050 Hz: the build
# resamples to 48 kHz (libsoxr).  Same duration within 20 ms, the same
# bytes from run to run and for any -j, tags like the others.
run 0 opus-j1 "$TINGSHU" build -q -j1 --format opus -o out-opus-1 ch.txt
run 0 opus-j2 "$TINGSHU" build -q -j2 --format opus -o out-opus-2 ch.txt
opus_file=$(find out-opus-1 -name '*.opus' | head -n 1)
if [ -z "$opus_file" ]; then
	fail "opus: no .opus file"
else
	[ "$(wav "$opus_file" subtype)" = OPUS ] || fail "opus: not Ogg Opus"
	[ "$(wav "$opus_file" rate)" = 48000 ] || fail "opus: not at 48000 Hz"
	[ "$(jq -r '.settings.sample_rate' out-opus-1/manifest.json)" = 48000 ] ||
		fail "opus: manifest sample_rate is not 48000"
	got_s=$(wav "$opus_file" duration_s)
	fcmp "$got_s - $want_s <= 0.020 && $want_s - $got_s <= 0.020" ||
		fail "opus: lasts $got_s s, the WAV build $want_s s (more than 20 ms apart)"
	fcmp "$(wav "$opus_file" rms_dbfs) > -40" || fail "opus: too quiet, not speech"
	cmp -s "$opus_file" "out-opus-2/$(basename "$opus_file")" || fail "opus: -j1 and -j2 files differ"
	no_temp_files out-opus-1 opus
fi
run 2 opus-44k "$TINGSHU" build -q --format opus --sample-rate 44100 -o out-opus-44 ch.txt
err_has opus-44k "opus" "48000"
[ -e out-opus-44 ] && fail "opus at 44100: made an output folder for a usage error"

run 2 vorbis "$TINGSHU" build -q --format vorbis -o out-vorbis ch.txt
err_has vorbis "unknown format 'vorbis'" "wav, flac, ogg, opus, mp3"
[ -e out-vorbis ] && fail "vorbis: made an output folder for a usage error"
e2e_finish
