#!/bin/bash
# e2e_epub_in: EPUB books in, through the command line.  The EPUBs are
# tests/tools/mkepub.py's (made here), each with what it must read as.
#  - build: one chapter file per contents entry, titled by it; the book's
#    title and author from the EPUB; a bad EPUB beside a good one is an
#    error naming it (exit 1) and the good one is built; no temporary file
#    is left in TMPDIR.
#  - what is spoken is the book's text: the sentences of each chapter's
#    .vtt, put together, are its title and paragraphs as the EPUB has them
#    (notes, ruby annotations, images, scripts, cover and copyright pages
#    left out).
#  - text and pinyin read it; --dry-run lists its chapters.
#  - --book m4b,epub: the EPUB's cover and author in the M4B; the EPUB made
#    passes epubcheck when it is installed.
# Extra argument: the m4binfo tool.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq
command -v python3 >/dev/null || e2e_skip "python3 is needed to make the EPUBs"
M4BINFO=$(realpath "${E2E_ARGS[0]}")
python3 "$SRC/tests/tools/mkepub.py" epubs || e2e_die "mkepub.py failed"
mkdir tmp
export TMPDIR=$SCRATCH/tmp

# expect_text CASE: the .expect's chapters as `text` shows them: each
# title on a line, then its paragraphs.
expect_text() {
	sed -n '/^chapter: /{s/^chapter: //;p;d};/^title: /d;/^author: /d;p' "epubs/$1.expect"
}

# --- a good EPUB beside a bad one -------------------------------------------
run 1 build "$TINGSHU" build -q -j2 -o out epubs/notes_ruby.epub epubs/drm.epub
err_has build "drm.epub" "encrypted"
[ "$(jq -r .title out/manifest.json)" = 旧账册 ] ||
	fail "the book's title is $(jq -r .title out/manifest.json), not the EPUB's dc:title 旧账册"
[ "$(jq -r .settings.author out/manifest.json)" = 周望川 ] ||
	fail "the author is $(jq -r .settings.author out/manifest.json), not the EPUB's dc:creator"
titles=$(jq -r '.chapters[].title' out/manifest.json | tr '\n' '|')
[ "$titles" = "第一章 账册|第二章 来信|" ] || fail "chapters: $titles"
# The spoken sentences of each chapter are its title and text.
n=0
while IFS= read -r vtt; do
	n=$((n + 1))
	spoken=$(awk 'NR > 1 && !/-->/ && !/^[0-9]+( ¶)?$/' "$vtt" | tr -d ' \n')
	want=$(expect_text notes_ruby | awk -v n="$n" '/^第/ { k++ } k == n' | tr -d ' \n')
	[ "$spoken" = "$want" ] || fail "chapter $n: spoken \"$spoken\", the EPUB's text \"$want\""
done < <(ls out/*.vtt)
[ "$n" = 2 ] || fail "$n timing files, not 2"
leftover=$(ls -A tmp)
[ -z "$leftover" ] || fail "temporary files left in TMPDIR: $leftover"
pass "an EPUB built chapter by chapter, its text spoken as written; a bad one beside it refused"

# --- every bad EPUB: exit 1, a message naming it ---------------------------
for c in truncated notzip nopackage missing_item escape bomb; do
	phrase=$(sed -n 's/^error: //p' "epubs/$c.expect")
	run 1 "bad_$c" "$TINGSHU" build -q -o "bad_$c" "epubs/$c.epub" || continue
	err_has "bad_$c" "epubs/$c.epub" "$phrase"
done
pass "bad EPUBs refused with a message naming them"

# --- text, pinyin, --dry-run -------------------------------------------------
run 0 text "$TINGSHU" text epubs/nav3.epub
diff <(expect_text nav3) "$RUN_OUT" >text.diff || fail "text of nav3.epub differs: $(head -5 text.diff)"
run 0 pinyin "$TINGSHU" pinyin epubs/fragments.epub
grep -q '^di4 yi1 hui2 deng1 hui4$' "$RUN_OUT" || fail "pinyin: no line for 第一回 灯会: $(head -2 "$RUN_OUT")"
run 0 dry "$TINGSHU" build --dry-run -o dry epubs/fragments.epub
[ "$(grep -c '^0' "$RUN_OUT")" = 4 ] || fail "--dry-run lists $(grep -c '^0' "$RUN_OUT") chapters, not 4"
grep -q '第四回' "$RUN_OUT" || fail "--dry-run does not list 第四回"
[ -e dry ] && fail "--dry-run made the output folder"
pass "text, pinyin and --dry-run read EPUBs"

# --- the whole book from an EPUB: its cover and author ---------------------
run 0 whole "$TINGSHU" build -q -j2 --book m4b,epub -o whole epubs/nav3.epub
"$M4BINFO" whole/*.m4b >info.txt || fail "m4binfo cannot read the M4B"
grep -q '^cover png ' info.txt || fail "the M4B has not the EPUB's cover: $(tr '\n' '|' <info.txt)"
grep -qxF 'tag artist 林晚舟' info.txt || fail "the M4B's artist is not the EPUB's author"
[ "$(grep -c '^chapter ' info.txt)" = 3 ] || fail "the M4B has $(grep -c '^chapter ' info.txt) chapters"
if [ -f /usr/share/java/epubcheck.jar ] && command -v java >/dev/null; then
	java -jar /usr/share/java/epubcheck.jar whole/*.epub >check.txt 2>&1 ||
		fail "epubcheck: $(grep -E 'ERROR|WARNING' check.txt | head -3)"
fi
no_temp_files whole whole
pass "--book m4b,epub from an EPUB: its cover and author"
e2e_finish
