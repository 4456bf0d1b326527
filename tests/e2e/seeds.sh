#!/bin/bash
# e2e_seeds: build the two seed chapters and check everything in the output
# folder: manifest, playlist, and the audio itself.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq

OUT=$SCRATCH/out
run 0 build "$TINGSHU" build -q -j2 -o "$OUT" "$SRC/seeds/" || e2e_finish
[ -s "$RUN_ERR" ] && fail "build -q wrote to stderr: $(head -c 300 "$RUN_ERR")"

M=$OUT/manifest.json
[ -f "$M" ] || e2e_die "no manifest.json in $OUT"
jq -e . "$M" >/dev/null 2>&1 || e2e_die "manifest.json is not valid JSON"

jq -e '.title | type == "string" and length > 0' "$M" >/dev/null || fail "manifest: no title"
jq -e '.voice == "cmn"' "$M" >/dev/null || fail "manifest: voice is $(jq -c .voice "$M"), expected \"cmn\""
jq -e '.settings | type == "object" and length > 0' "$M" >/dev/null || fail "manifest: no settings object"
jq -e '.chapters | type == "array" and length == 2' "$M" >/dev/null ||
	e2e_die "manifest: expected 2 chapters, got $(jq -c '.chapters | length' "$M")"
jq -e '[.chapters[] | has("index") and has("title") and has("source") and has("audio")
        and has("duration_s") and has("sentences") and has("chars")] | all' "$M" >/dev/null ||
	fail "manifest: a chapter lacks one of index,title,source,audio,duration_s,sentences,chars"
jq -e '[.chapters[] | (.index|type)=="number" and (.duration_s|type)=="number"
        and (.sentences|type)=="number" and .sentences > 0 and (.chars|type)=="number"
        and .chars > 0 and (.audio|type)=="string" and (.title|type)=="string"] | all' "$M" >/dev/null ||
	fail "manifest: a chapter field has the wrong type or a zero count"
jq -e '[.chapters[].index] == [1, 2]' "$M" >/dev/null ||
	fail "manifest: chapter indexes are $(jq -c '[.chapters[].index]' "$M"), expected [1,2]"

# Sources in natural order: 000_… before 004_….
mapfile -t sources < <(jq -r '.chapters[].source' "$M")
case "${sources[0]:-}" in *000_216cac3f054fd1e8.txt) ;; *) fail "chapter 1 source is '${sources[0]:-}'" ;; esac
case "${sources[1]:-}" in *004_5daa9d81391bddb7.txt) ;; *) fail "chapter 2 source is '${sources[1]:-}'" ;; esac

# Playlist: the two audio files, in order, and nothing else that is not a comment.
P=$OUT/playlist.m3u
[ -f "$P" ] || fail "no playlist.m3u"
mapfile -t audio < <(jq -r '.chapters[].audio' "$M")
mapfile -t listed < <(grep -v '^#' "$P" | grep -v '^[[:space:]]*$' | tr -d '\r')
if [ "${listed[*]}" != "${audio[*]}" ]; then
	fail "playlist lists '${listed[*]}', manifest audio is '${audio[*]}'"
fi
[ "$(head -n 1 "$P" | tr -d '\r')" = "#EXTM3U" ] || fail "playlist does not start with #EXTM3U"

for i in 0 1; do
	a=${audio[$i]}
	case "$a" in
	*/* | .*) fail "audio name '$a' is not a plain file name" ; continue ;;
	esac
	[ -f "$OUT/$a" ] || { fail "audio file $a is missing"; continue; }
	chars=$(jq ".chapters[$i].chars" "$M")
	md=$(jq ".chapters[$i].duration_s" "$M")
	WAV_DURATION=
	check_wav "$OUT/$a" "$chars" "chapter $((i + 1))"
	if [ -n "$WAV_DURATION" ]; then
		fcmp "($md - $WAV_DURATION) < 0.01 && ($WAV_DURATION - $md) < 0.01" ||
			fail "chapter $((i + 1)): manifest duration_s $md, file lasts $WAV_DURATION s"
	fi
	# The manifest counts the spoken characters: near the file's count.
	raw=$(tr -d '[:space:]' <"${sources[$i]}" | wc -m)
	fcmp "$chars <= $raw * 1.5 && $chars >= $raw * 0.5" ||
		fail "chapter $((i + 1)): manifest chars $chars for a file of $raw non-space characters"
done

# wavinfo itself refuses what is not audio (so the checks above mean something).
"$WAVINFO" "$M" >/dev/null 2>&1 && fail "wavinfo accepted manifest.json as audio"
"$WAVINFO" "$OUT/no-such.wav" >/dev/null 2>&1 && fail "wavinfo accepted a missing file"

# Book duration, if given, is the sum of the chapters.
if jq -e 'has("duration_s")' "$M" >/dev/null; then
	jq -e '((.duration_s - ([.chapters[].duration_s] | add)) | fabs) < 0.01' "$M" >/dev/null ||
		fail "manifest: book duration_s is not the sum of the chapters"
fi

# Nothing else: 2 audio files, manifest, playlist, the read-along page
# (and maybe timing sidecars); no temporary files, no subfolders.
no_temp_files "$OUT" "seeds"
n=$(find "$OUT" -mindepth 1 -name '*.wav' | wc -l)
[ "$n" -eq 2 ] || fail "$OUT holds $n .wav files, expected 2"
other=$(find "$OUT" -mindepth 1 -path "$OUT/.tingshu" -prune -o ! -name '*.wav' ! -name manifest.json \
	! -name playlist.m3u ! -name index.html ! -name '*.srt' ! -name '*.vtt' ! -name '*.lrc' ! -name '*.js' -printf '%f ')
[ -z "$other" ] || fail "unexpected entries in $OUT: $other"

e2e_finish
