#!/bin/bash
# e2e_timing: sentence timing files.  For every chapter of a small book
# (numbers, English, quotes, a question, an exclamation, paragraphs) and of
# the seeds: .srt and .vtt beside the audio (.lrc and .json too when asked),
# named in the manifest; one cue per sentence, the title first, in order,
# not overlapping, inside the audio, every stretch of sound inside a cue,
# and the cue texts the sentences as written in the book.  --timing none
# writes none; a bad --timing is a usage error; --force removes the timing
# files a build no longer makes.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq

# The book, and the cues it must give (title, then each sentence).
cat >book.txt <<'EOF'
第一章 春天来了

2024年3月5日，小明买了3个苹果，花了25元。他说：“Hello，你好！”
“你要去哪里？”她问。
他没有回答……过了一会儿才说：“我去北京。”真的吗?当然!

第二章 夏天

天气很热，温度是37℃。我们去游泳吧！
EOF
want_1=(
	'第一章 春天来了'
	'2024年3月5日，小明买了3个苹果，花了25元。'
	'他说：“Hello，你好！”'
	'“你要去哪里？”'
	'她问。'
	'他没有回答……'
	'过了一会儿才说：“我去北京。”'
	'真的吗?'
	'当然!'
)
want_2=(
	'第二章 夏天'
	'天气很热，温度是37℃。'
	'我们去游泳吧！'
)

# srt_cues FILE: one line per cue, "START_MS<TAB>END_MS<TAB>TEXT".
srt_cues() {
	awk 'BEGIN { RS = ""; FS = "\n" }
	function ms(t,  a) { split(t, a, /[:,.]/); return ((a[1] * 60 + a[2]) * 60 + a[3]) * 1000 + a[4] }
	{
		if ($1 == "WEBVTT") next
		split($2, t, / --> /)
		text = $3
		for (i = 4; i <= NF; i++) text = text "\n" $i
		printf "%d\t%d\t%s\n", ms(t[1]), ms(t[2]), text
	}' "$1"
}

# vtt_cues FILE: the same for WebVTT, its text unescaped.
vtt_cues() {
	[ "$(head -n 1 "$1")" = WEBVTT ] || fail "$1 does not start with WEBVTT"
	srt_cues "$1" | sed 's/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g'
}

# check_cues NAME CUES_TSV AUDIO WANT_COUNT: order, no overlap, inside the
# audio, and every stretch of sound inside a cue.
check_cues() {
	local name=$1 cues=$2 audio=$3 want=$4 n
	n=$(wc -l <"$cues")
	[ "$n" -eq "$want" ] || fail "$name: $n cues, expected $want"
	local rate frames
	rate=$(wav "$audio" rate)
	frames=$(wav "$audio" frames)
	awk -F'\t' -v name="$name" -v rate="$rate" -v frames="$frames" '
	{
		if ($3 == "") { print "FAIL: " name ": cue " NR " has no text"; bad = 1 }
		if ($1 >= $2) { print "FAIL: " name ": cue " NR " ends at " $2 " ms, not after its start " $1; bad = 1 }
		if (NR > 1 && $1 < prev) { print "FAIL: " name ": cue " NR " starts at " $1 " ms, before the previous cue ends (" prev ")"; bad = 1 }
		if ($2 * rate > frames * 1000 + rate) { print "FAIL: " name ": cue " NR " ends at " $2 " ms, after the audio (" frames " frames)"; bad = 1 }
		prev = $2
	}
	END { exit bad }' "$cues" >&2 || E2E_FAILS=$((E2E_FAILS + 1))
	# Stretches of sound (frames) against the cues (ms): inside one.
	"$WAVINFO" --spans "$audio" | sed -n 's/^span=//p' >"$cues.spans"
	[ -s "$cues.spans" ] || fail "$name: no sound in $audio"
	awk -v name="$name" -v rate="$rate" '
	NR == FNR { split($0, f, "\t"); s[NR] = f[1]; e[NR] = f[2]; n = NR; next }
	{
		ok = 0
		for (i = 1; i <= n && !ok; i++)
			ok = s[i] * rate <= $1 * 1000 && $2 * 1000 <= e[i] * rate
		if (!ok) { print "FAIL: " name ": sound from frame " $1 " to " $2 " is in no cue"; bad = 1 }
	}
	END { exit bad }' "$cues" "$cues.spans" >&2 || E2E_FAILS=$((E2E_FAILS + 1))
}

# texts_are NAME CUES_TSV WANT...: the cue texts, in order.
texts_are() {
	local name=$1 cues=$2 i=0 got
	shift 2
	mapfile -t got < <(cut -f3 "$cues")
	[ "${#got[@]}" -eq $# ] || fail "$name: ${#got[@]} cue texts, expected $#"
	for w in "$@"; do
		[ "${got[$i]:-}" = "$w" ] || fail "$name: cue $((i + 1)) is '${got[$i]:-}', expected '$w'"
		i=$((i + 1))
	done
}

# check_chapter OUT INDEX TITLE_CUES WANT_TEXTS_VAR|"" FORMATS: the files
# of chapter INDEX (0-based in the manifest).
check_chapter() {
	local out=$1 i=$2 title=$3 wantvar=$4 formats=$5 M=$1/manifest.json
	local audio base sentences label f
	audio=$(jq -r ".chapters[$i].audio" "$M")
	base=${audio%.*}
	sentences=$(jq -r ".chapters[$i].sentences" "$M")
	label="$out chapter $((i + 1))"
	for f in srt vtt lrc json; do
		if [[ ",$formats," == *",$f,"* ]]; then
			[ -f "$out/$base.$f" ] || fail "$label: no $base.$f"
			[ "$(jq -r ".chapters[$i].timing.$f" "$M")" = "$base.$f" ] ||
				fail "$label: manifest timing.$f is $(jq -c ".chapters[$i].timing" "$M")"
		else
			[ -e "$out/$base.$f" ] && fail "$label: $base.$f written, not asked for"
			[ "$(jq -r ".chapters[$i].timing.$f" "$M")" = null ] ||
				fail "$label: manifest names a $f file not written"
		fi
	done
	[ -f "$out/$base.srt" ] || return 0
	srt_cues "$out/$base.srt" >"$out/$base.srt.tsv"
	check_cues "$label srt" "$out/$base.srt.tsv" "$out/$audio" $((sentences + title))
	vtt_cues "$out/$base.vtt" >"$out/$base.vtt.tsv"
	cmp -s "$out/$base.srt.tsv" "$out/$base.vtt.tsv" || fail "$label: the VTT cues are not the SRT cues"
	if [ -n "$wantvar" ]; then
		local -n want=$wantvar
		texts_are "$label" "$out/$base.srt.tsv" "${want[@]}"
	fi
	if [ -f "$out/$base.json" ]; then
		# Seconds to the microsecond, within a millisecond of the SRT times.
		jq -r '.[] | "\(.start * 1000)\t\(.end * 1000)\t\(.text)"' "$out/$base.json" |
			paste - "$out/$base.srt.tsv" | awk -F'\t' -v l="$label" '
			$3 != $6 || $1 < $4 || $1 >= $4 + 1 || $2 > $5 || $2 <= $5 - 1 {
				print "FAIL: " l ": JSON cue " NR " is " $1 " " $2 " " $3 "; SRT: " $4 " " $5 " " $6; bad = 1 }
			END { exit bad }' >&2 || E2E_FAILS=$((E2E_FAILS + 1))
		[ "$(jq length "$out/$base.json")" -eq "$(wc -l <"$out/$base.srt.tsv")" ] ||
			fail "$label: JSON has $(jq length "$out/$base.json") cues"
	fi
	if [ -f "$out/$base.lrc" ]; then
		# [mm:ss.xx]text lines, the same texts; empty ones clear the text.
		grep -v '^\[[0-9][0-9]*:[0-5][0-9]\.[0-9][0-9]\]' "$out/$base.lrc" | grep -q . &&
			fail "$label: an LRC line without a [mm:ss.xx] time"
		sed -n 's/^\[[0-9:.]*\]//p' "$out/$base.lrc" | grep -v '^$' >"$out/$base.lrc.txt"
		cut -f3 "$out/$base.srt.tsv" | cmp -s - "$out/$base.lrc.txt" ||
			fail "$label: the LRC texts are not the SRT texts"
	fi
}

# The book, with every format.
run 0 all "$TINGSHU" build -q -j2 --timing srt,vtt,lrc,json -o all book.txt
[ "$(jq '.chapters | length' all/manifest.json)" = 2 ] || e2e_die "the book did not give 2 chapters"
check_chapter all 0 1 want_1 srt,vtt,lrc,json
check_chapter all 1 1 want_2 srt,vtt,lrc,json
# The cues that start a paragraph (the title, then each line's first
# sentence) are marked: "N ¶" in WebVTT, "paragraph": true in JSON.
b1=all/$(jq -r '.chapters[0].audio' all/manifest.json)
b1=${b1%.*}
got=$(sed -n 's/^\([0-9][0-9]*\) ¶$/\1/p' "$b1.vtt" | paste -sd, -)
[ "$got" = 1,2,4,6 ] || fail "paragraph marks: cues $got of chapter 1 are marked, not 1,2,4,6"
got=$(jq -c '[.[] | .paragraph // false]' "$b1.json")
[ "$got" = '[true,true,false,true,false,true,false,false,false]' ] ||
	fail "paragraph marks: JSON says $got"
no_temp_files all "all formats"

# The default: .srt and .vtt.
run 0 default "$TINGSHU" build -q -j1 -o default book.txt
check_chapter default 0 1 want_1 srt,vtt
check_chapter default 1 1 want_2 srt,vtt
for f in srt vtt; do
	cmp -s "all/001-第一章_春天来了.$f" "default/001-第一章_春天来了.$f" ||
		fail "default: .$f differs from the build with every format"
done

# The seeds: no title spoken (their titles are file names); the cue texts
# joined are the chapter as written, lookalikes repaired.
run 0 seeds "$TINGSHU" build -q -j2 -o seeds "$SRC/seeds/"
lookalikes=$(awk -F'\t' '!/^#/ && NF == 2 { printf "s/%s/%s/g;", $1, $2 }' "$SRC/voices/zh/lookalikes.tsv")
for i in 0 1; do
	check_chapter seeds $i 0 "" srt,vtt
	src=$(jq -r ".chapters[$i].source" seeds/manifest.json)
	audio=$(jq -r ".chapters[$i].audio" seeds/manifest.json)
	want=$(sed "$lookalikes; s/[[:space:]　]//g" "$src" | tr -d '\n')
	got=$(cut -f3 "seeds/${audio%.*}.srt.tsv" | tr -d ' \n')
	[ "$got" = "$want" ] || fail "seeds chapter $((i + 1)): the cue texts are not the text as written"
done

# --timing none: no timing files, an empty timing object.
run 0 none "$TINGSHU" build -q -j2 --timing none -o none book.txt
check_chapter none 0 1 "" ""
[ "$(jq -c '.chapters[0].timing' none/manifest.json)" = '{}' ] ||
	fail "none: manifest timing is $(jq -c '.chapters[0].timing' none/manifest.json)"

# --force: timing files the new build does not make go, like stale audio.
run 0 force "$TINGSHU" build -q -j2 --force --timing vtt -o all book.txt
check_chapter all 0 1 want_1 vtt
check_chapter all 1 1 want_2 vtt

# A bad list is a usage error, before anything is made.
for bad in x srt,x "" srt,,vtt none,srt; do
	run 2 "bad-$bad" "$TINGSHU" build -q --timing "$bad" -o bad book.txt
	err_has "bad --timing '$bad'" "--timing" "srt, vtt, lrc, json"
done
[ -e bad ] && fail "a bad --timing made an output folder"
run 0 help "$TINGSHU" build --help
grep -q -- "--timing LIST" "$RUN_OUT" || fail "build --help does not document --timing"

# --dry-run is unaffected.
run 0 dry "$TINGSHU" build --dry-run --timing srt,lrc -o dry book.txt
[ -e dry ] && fail "--dry-run made an output folder"
e2e_finish
