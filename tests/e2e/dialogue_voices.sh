#!/bin/bash
# e2e_dialogue_voices: tingshu build --dialogue voices reads each quotation
# in its speaker's voice (issue 19).
# - --dialogue narrator is byte for byte a plain build;
# - --dialogue voices gives the same files whatever -j is, and other audio;
# - a woman's quotations (王夫人, from the pool: a female preset) raise the
#   chapter's median pitch above the narrator's;
# - the quotations' cues name the speaker: WebVTT <v NAME>, JSON "speaker";
# - the read-along page's cues carry them too;
# - the manifest's settings say "dialogue": "voices" and the cast;
# - a chapter built alone (--chapters) is the one of the whole book;
# - a cast file's preset is used (王夫人 cast as cmn-m1: lower than the
#   pool's female voice), and a cast file switches voices on by itself,
#   unless --dialogue narrator is given.
# Extra argument: the pitch tool (tools/pitch.c).
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq
PITCH=${E2E_ARGS[0]:-}
[ -x "$PITCH" ] || e2e_die "pitch tool '$PITCH' is missing"

mkdir -p book cast
cat >book/book.txt <<'TXT'
第一章 夫人

王夫人笑道：“今天天气真好，我们到园子里去走一走，看看花，再回来喝茶。”
王夫人又道：“你们都来吧，别让我一个人等着，天黑以前一定要回来。”
众人都去了。
TXT
cp book/book.txt cast/book.txt
printf '王夫人\tcmn-m1\n' >cast/cast.txt

build() { # NAME OUT ARGS...
	local name=$1 out=$2
	shift 2
	run 0 "$name" "$TINGSHU" build -q --loudness off -o "$out" "$@"
}
build plain plain -j1 book/book.txt
build narrator narrator -j1 --dialogue narrator book/book.txt
build voices1 voices1 -j1 --dialogue voices --timing srt,vtt,json book/book.txt
build voices2 voices2 -j2 --dialogue voices --timing srt,vtt,json book/book.txt
build cast cast_out -j1 cast/book.txt
build cast_flag cast_flag -j1 --cast cast/cast.txt --dialogue voices book/book.txt
build cast_narrator cast_narrator -j1 --dialogue narrator cast/book.txt

same_files() { # A B LABEL
	local f
	for f in "$1"/*; do
		cmp -s "$f" "$2/${f#"$1"/}" || fail "$3: ${f#"$1"/} differs"
	done
}
same_files plain narrator "--dialogue narrator and a plain build"
same_files voices1 voices2 "--dialogue voices with -j1 and -j2"
audio() { echo "$1/$(jq -r '.chapters[0].audio' "$1/manifest.json")"; }
cmp -s "$(audio plain)" "$(audio voices1)" && fail "--dialogue voices: the audio is the plain build's"
# The manifests differ: they name the source.
cmp -s "$(audio cast_out)" "$(audio cast_flag)" ||
	fail "a cast.txt beside the book and --cast give different audio"
cmp -s "$(audio plain)" "$(audio cast_narrator)" ||
	fail "--dialogue narrator with a cast.txt beside the book is not the plain build's audio"

# Two chapters: the second built alone sounds as in the whole book.
mkdir -p two
{ cat book/book.txt; printf '\n第二章 宝玉\n\n宝玉道：“我也去。”王夫人道：“去吧。”\n'; } >two/two.txt
build two_all two_all -j2 --dialogue voices two/two.txt
build two_alone two_alone -j1 --dialogue voices --chapters 2 two/two.txt
second=$(jq -r '.chapters[1].audio' two_all/manifest.json)
cmp -s "two_all/$second" "two_alone/$second" ||
	fail "chapter 2 built alone differs from chapter 2 of the whole book"

# The speakers in the timing files: both quotations are 王夫人's.
vtt=voices1/$(jq -r '.chapters[0].timing.vtt // empty' voices1/manifest.json)
[ -f "$vtt" ] || vtt=$(ls voices1/*.vtt)
n=$(grep -c '^<v 王夫人>“' "$vtt")
[ "$n" -eq 2 ] || fail "$vtt: $n cues of <v 王夫人>, expected 2: $(grep -n '<v' "$vtt" | tr '\n' ' ')"
grep -q '^<v' plain/*.vtt && fail "a plain build's WebVTT names speakers"
json=$(ls voices1/*.json | grep -v manifest.json)
n=$(jq '[.[] | select(.speaker == "王夫人")] | length' "$json")
[ "$n" -eq 2 ] || fail "$json: $n cues with speaker 王夫人, expected 2"
n=$(jq '[.[] | select(.speaker)] | length' "$json")
[ "$n" -eq 2 ] || fail "$json: $n cues with a speaker, expected 2 (narration has none)"

# The read-along page carries the speakers (the fifth element of a cue in
# the chapter's script).
js=$(ls voices1/*.js)
n=$(grep -o ',"王夫人"\]' "$js" | wc -l)
[ "$n" -eq 2 ] || fail "$js: $n cues of 王夫人, expected 2"

# The manifest: the mode and the cast, only with voices.
[ "$(jq -r '.settings.dialogue' voices1/manifest.json)" = voices ] ||
	fail "the manifest does not say \"dialogue\": \"voices\""
case $(jq -r '.settings.cast["王夫人"]' voices1/manifest.json) in
cmn-f?) ;;
*) fail "the manifest's cast has no female preset for 王夫人: $(jq -c .settings.cast voices1/manifest.json)" ;;
esac
[ "$(jq -r '.settings.cast["王夫人"]' cast_out/manifest.json)" = cmn-m1 ] ||
	fail "the manifest's cast does not give the cast file's cmn-m1: $(jq -c .settings.cast cast_out/manifest.json)"
[ "$(jq -r '.settings | has("dialogue") or has("cast")' plain/manifest.json)" = false ] ||
	fail "a plain build's manifest speaks of dialogue"

hz() { "$PITCH" "$(audio "$1")" | sed -n 's/^median_hz=//p'; }
p_plain=$(hz plain) p_voices=$(hz voices1) p_cast=$(hz cast_out)
echo "median pitch: narrator $p_plain Hz, voices $p_voices Hz, cast as cmn-m1 $p_cast Hz"
[ -n "$p_plain" ] && [ -n "$p_voices" ] && [ -n "$p_cast" ] || fail "no pitch measured"
fcmp "$p_voices > $p_plain * 1.15" ||
	fail "the woman's quotations do not raise the pitch: $p_voices Hz against the narrator's $p_plain Hz"
fcmp "$p_cast < $p_voices / 1.15" ||
	fail "the cast's cmn-m1 is not used: $p_cast Hz against the pool's female $p_voices Hz"
e2e_finish
