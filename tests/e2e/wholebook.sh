#!/bin/bash
# e2e_wholebook: --book m4b,epub writes the whole book beside the chapter
# files.  The M4B: AAC, the M4B brand, a chapter mark per chapter where the
# chapters before it add up to, their titles, the tags, the cover.  The
# EPUB: epubcheck finds no error and no warning; every <par> pairs a
# sentence's text with its clip, as the chapter's .vtt has them
# (tools/overlays.py); a hostile title and text stay text; MP3 chapters go
# in as they are.  Both named in the manifest's book_files, kept while
# nothing changes and made again when a chapter does; bad --book and
# --cover values are usage errors that write nothing.  Extra argument: the
# m4binfo tool.  epubcheck (Debian's, with a Java runtime) is needed under
# CI; elsewhere its check is skipped with a note.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq
M4BINFO=$(realpath "${E2E_ARGS[0]}")
M4BMARKS=$(realpath "${E2E_ARGS[1]}")
[ -x "$M4BINFO" ] || e2e_die "m4binfo tool ${E2E_ARGS[0]} is missing"

# A short book: the front matter and three chapters; the title has marks
# a file name cannot keep as they are.
{
	echo '《测试/之书 "甲" & <乙>》'
	echo '作者：张三'
	echo
	for c in 一 二 三; do
		echo "第${c}章 山路${c}"
		echo '天刚亮，村口的老槐树下站着一个少年。他背着包袱，望着远方的山路。'
	done
	echo '他写下“A&B<C>”几个字。'
} >book.txt
# A 2x3 PNG as the cover.
printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x03\x08\x02\x00\x00\x006\x88I\xd6\x00\x00\x00\x10IDATx\x9cc8``\x00D\x0c(\x14\x00JU\x06\xc1\xa87\xdf4\x00\x00\x00\x00IEND\xaeB`\x82' >cover.png

# --- bad values: usage errors, nothing written ----------------------------
bad() {
	local name=$1 says=$2
	shift 2
	run 2 "$name" "$TINGSHU" build -q "$@" -o bad_out book.txt || return
	err_has "$name" "$says"
	[ -e bad_out ] && fail "$name: the output folder was made: $(ls -A bad_out | tr '\n' ' ')"
	rm -rf bad_out
}
bad book_unknown "not 'mp4'" --book m4b,mp4
bad epub_no_vtt "--timing must include vtt" --book epub --timing srt
bad cover_missing "No such file" --book m4b --cover nowhere.jpg
printf 'GIF89a' >cover.gif
bad cover_gif "not a JPEG or PNG" --book m4b --cover cover.gif
bad cover_alone "--book m4b" --cover cover.png

# --- the book --------------------------------------------------------------
run 0 build "$TINGSHU" build -q -j2 --book m4b,epub --author 罗贯中 --cover cover.png -o out book.txt
m4b=$(jq -r '.book_files.m4b // empty' out/manifest.json)
[ -n "$m4b" ] || fail "the manifest names no m4b: $(jq -c .book_files out/manifest.json)"
[ -f "out/$m4b" ] || e2e_die "out/$m4b is not there: $(ls out | tr '\n' ' ')"
case $m4b in */* | .*) fail "the M4B's name '$m4b' is not a plain file name" ;; esac
"$M4BINFO" "out/$m4b" >info.txt || e2e_die "m4binfo cannot read out/$m4b"
has() { grep -qxF -- "$1" info.txt || fail "the M4B: no line '$1' in: $(tr '\n' '|' <info.txt)"; }
has "brand M4B "
grep -q '^audio aac [0-9]* 1$' info.txt || fail "the M4B's audio is not mono AAC: $(grep '^audio' info.txt)"
title=$(jq -r .title out/manifest.json)
has "tag title $title"
has "tag album $title"
has "tag artist 罗贯中"
has "tag genre Audiobook"
has "cover png 2 3 $(stat -c %s cover.png)"
has "atom chpl"
has "atom chap"
# One mark per chapter, where the chapters before it add up to (50 ms), with
# its title; the whole as long as the chapters.
mapfile -t marks < <(sed -n 's/^chapter //p' info.txt)
n=$(jq '.chapters | length' out/manifest.json)
[ "${#marks[@]}" -eq "$n" ] || fail "the M4B has ${#marks[@]} chapter marks, the book $n chapters"
start=0
for ((i = 0; i < n && i < ${#marks[@]}; i++)); do
	read -r s e t <<<"${marks[$i]}"
	want_t=$(jq -r ".chapters[$i].title" out/manifest.json)
	d=$(jq -r ".chapters[$i].duration_s" out/manifest.json)
	fcmp "($s - $start) < 0.05 && ($start - $s) < 0.05" ||
		fail "chapter mark $i starts at $s s, the chapters before it add up to $start s"
	fcmp "($e - $s - $d) < 0.05 && ($d - $e + $s) < 0.05" ||
		fail "chapter mark $i lasts $(awk "BEGIN{print $e - $s}") s, its chapter $d s"
	[ "$t" = "$want_t" ] || fail "chapter mark $i is titled '$t', its chapter '$want_t'"
	start=$(awk "BEGIN{print $start + $d}")
done
total=$(sed -n 's/^duration //p' info.txt)
fcmp "($total - $start) < 0.1 && ($start - $total) < 0.1" ||
	fail "the M4B lasts $total s, its chapters $start s"
no_temp_files out wholebook
pass "the M4B: brand, AAC, $n chapter marks, tags, cover"
# marks LABEL [DIR]: the M4B decoded around each mark against the chapter
# files: each mark within half an AAC frame of the manifest's chapter
# start, the chapter's sound right after it, no click where two chapters
# meet.
marks() {
	local dir=${2:-out}
	mapfile -t files < <(jq -r --arg d "$dir" '.chapters[].audio | $d + "/" + .' "$dir/manifest.json")
	"$M4BMARKS" "$dir/$(jq -r .book_files.m4b "$dir/manifest.json")" "${files[@]}" >"logs/$1.marks" 2>&1 ||
		fail "$1: the M4B's chapter boundaries: $(tr '\n' '|' <"logs/$1.marks")"
}
marks marks

# --- the EPUB ----------------------------------------------------------------
# check_epub LABEL OUTDIR: epubcheck, and the overlays against the .vtt.
EPUBCHECK=/usr/share/java/epubcheck.jar
check_epub() {
	local label=$1 dir=$2 epub
	epub=$(jq -r '.book_files.epub // empty' "$dir/manifest.json")
	[ -n "$epub" ] && [ -f "$dir/$epub" ] || { fail "$label: no EPUB named in $dir/manifest.json"; return; }
	if command -v java >/dev/null && [ -f "$EPUBCHECK" ]; then
		java -jar "$EPUBCHECK" "$dir/$epub" >"logs/$label.epubcheck" 2>&1 ||
			fail "$label: epubcheck fails: $(grep -E 'ERROR|WARNING|FATAL' "logs/$label.epubcheck" | head -5)"
		grep -q 'No errors or warnings detected' "logs/$label.epubcheck" ||
			fail "$label: epubcheck: $(grep -E 'ERROR|WARNING' "logs/$label.epubcheck" | head -5)"
	elif [ -n "${CI:-}" ]; then
		fail "$label: no epubcheck (apt-get install epubcheck default-jre-headless)"
	else
		echo "note: $label: epubcheck not checked (no java or $EPUBCHECK)"
	fi
	python3 "$SRC/tests/e2e/tools/overlays.py" "$dir/$epub" "$dir" >"logs/$label.overlays" 2>&1 ||
		fail "$label: the overlays: $(head -5 "logs/$label.overlays")"
}
check_epub epub out
unzip -p "out/$(jq -r .book_files.epub out/manifest.json)" 'EPUB/c*.xhtml' | grep -qF '“A&amp;B&lt;C&gt;”' ||
	fail "the sentence with & and <> is not in the EPUB's text, escaped"
unzip -l "out/$(jq -r .book_files.epub out/manifest.json)" | grep -q 'EPUB/cover.png' ||
	fail "the EPUB does not hold the cover"
pass "the EPUB: epubcheck, every clip and text as the .vtt has them, the cover"
run 0 mp3 "$TINGSHU" build -q -j2 --format mp3 --book epub -o out_mp3 book.txt
check_epub epub_mp3 out_mp3
unzip -l "out_mp3/$(jq -r .book_files.epub out_mp3/manifest.json)" | grep -q 'EPUB/audio/c001.mp3' ||
	fail "the EPUB of an MP3 build does not hold the chapters' MP3"
no_temp_files out_mp3 wholebook
pass "the EPUB of an MP3 build: the chapters' MP3 as they are"

# --- --format m4a: the chapters in AAC, the M4B and EPUB of the same packets --
run 0 m4a "$TINGSHU" build -q -j2 --format m4a --author 罗贯中 --book m4b,epub -o out_m4a book.txt
f=$(jq -r '.chapters[1].audio' out_m4a/manifest.json)
"$M4BINFO" "out_m4a/$f" >m4a.txt 2>&1 || fail "m4a: m4binfo cannot read out_m4a/$f"
grep -qxF "brand M4A " m4a.txt || fail "m4a: $f is not an M4A: $(tr '\n' '|' <m4a.txt)"
grep -q '^audio aac [0-9]* 1$' m4a.txt || fail "m4a: $f is not mono AAC"
grep -qxF "tag artist 罗贯中" m4a.txt || fail "m4a: $f has not the author's tag"
want=$(jq -r '.chapters[1].duration_s' out_m4a/manifest.json)
got=$(sed -n 's/^duration //p' m4a.txt)
fcmp "($got - $want) < 0.03 && ($want - $got) < 0.03" || fail "m4a: $f lasts $got s, the manifest says $want"
[ "$(find out_m4a/.tingshu/aac -name '*.m4a.aac' | wc -l)" -eq "$(jq '.chapters | length' out_m4a/manifest.json)" ] ||
	fail "m4a: not one AAC a chapter kept: $(ls -A out_m4a/.tingshu/aac)"
marks m4a_marks out_m4a
check_epub epub_m4a out_m4a
no_temp_files out_m4a m4a
pass "--format m4a: AAC in MP4 chapters, the M4B and EPUB from their packets"

# --- kept while nothing changes, made again when a chapter does ------------
epub=$(jq -r .book_files.epub out/manifest.json)
before=$(stat -c '%i %Y %s' "out/$m4b")
before_epub=$(stat -c '%i %Y %s' "out/$epub")
sleep 1
run 0 again "$TINGSHU" build -q -j2 --book m4b,epub --author 罗贯中 --cover cover.png -o out book.txt
[ "$(stat -c '%i %Y %s' "out/$m4b")" = "$before" ] || fail "an up-to-date build wrote the M4B again"
[ "$(stat -c '%i %Y %s' "out/$epub")" = "$before_epub" ] || fail "an up-to-date build wrote the EPUB again"
# A sentence of the last chapter: its AAC alone encoded again, the others
# kept (OUT/.tingshu/aac), the book assembled from them.
aac_stat() { stat -c '%n %i %Y %s' out/.tingshu/aac/*.aac; }
aac_before=$(aac_stat)
[ "$(wc -l <<<"$aac_before")" -eq "$(jq '.chapters | length' out/manifest.json)" ] ||
	fail "not one AAC a chapter in out/.tingshu/aac: $aac_before"
sed -i 's/”几个字。/”几个字，笑了。/' book.txt
run 0 edited "$TINGSHU" build -q -j2 --book m4b,epub --author 罗贯中 --cover cover.png -o out book.txt
changed=$(diff <(echo "$aac_before") <(aac_stat) | grep -c '^>')
[ "$changed" -eq 1 ] || fail "an edit of one chapter made $changed chapters' AAC again: $(aac_stat)"
marks marks_edited
[ "$(stat -c '%i %Y %s' "out/$m4b")" != "$before" ] || fail "the M4B was kept though the chapters changed"
[ "$(stat -c '%i %Y %s' "out/$epub")" != "$before_epub" ] || fail "the EPUB was kept though the chapters changed"
check_epub epub_edited out
"$M4BINFO" "out/$m4b" >info2.txt || fail "m4binfo cannot read the new M4B"
total=$(sed -n 's/^duration //p' info2.txt)
want=$(jq '[.chapters[].duration_s] | add' out/manifest.json)
fcmp "($total - $want) < 0.1 && ($want - $total) < 0.1" ||
	fail "the new M4B lasts $total s, its chapters $want s"
[ "$(jq -r '.book_files.m4b' out/manifest.json)" = "$m4b" ] || fail "the manifest lost the M4B"
[ "$(jq -r '.book_files.epub' out/manifest.json)" = "$epub" ] || fail "the manifest lost the EPUB"
# Without --book the manifest names none (the file stays).
run 0 plain "$TINGSHU" build -q -j2 --author 罗贯中 -o out book.txt
[ "$(jq -c .book_files out/manifest.json)" = "{}" ] ||
	fail "a build without --book lists $(jq -c .book_files out/manifest.json)"
no_temp_files out wholebook
pass "the M4B and EPUB kept when up to date, made again when a chapter changed"
e2e_finish
