#!/bin/bash
# e2e_epub_damaged: EPUB text is not lost without a word (issue 37).  The
# EPUBs are tests/tools/mkepub.py's hostile cases:
#  - deep255: a paragraph inside 255 nested <div>s is read;
#  - deep100k: 100,000 levels is an error naming the document and line;
#  - dtd_subset: an EPUB 2 internal DTD subset ("[<!ENTITY nbsp ...>]>")
#    is not read as text;
#  - gbk: a GBK document without a declaration is read as GBK, not as
#    mojibake;
#  - binary: a document of binary data is an error naming it, not an
#    empty chapter joined to the next;
#  - opf_entities, opf_deep: a package document with an entity loop or
#    nesting past the parser's limit says what is wrong with it, not "its
#    spine lists no document to read".
# One build checks the error and the exit code there too.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
command -v python3 >/dev/null || e2e_skip "python3 is needed to make the EPUBs"
python3 "$SRC/tests/tools/mkepub.py" epubs || e2e_die "mkepub.py failed"

expect_text() {
	sed -n '/^chapter: /{s/^chapter: //;p;d};/^title: /d;/^author: /d;p' "epubs/$1.expect"
}

for c in deep255 dtd_subset gbk; do
	run 0 "$c" "$TINGSHU" text "epubs/$c.epub" || continue
	diff <(expect_text "$c") "$RUN_OUT" >"$c.diff" ||
		fail "$c: text differs from the EPUB's: $(head -c 400 "$c.diff")"
	[ -s "$RUN_ERR" ] && fail "$c: warnings: $(head -c 300 "$RUN_ERR")"
done
grep -q ']>' logs/dtd_subset.out && fail "dtd_subset: the DTD subset read as text"

run 1 deep100k "$TINGSHU" text epubs/deep100k.epub &&
	err_has deep100k "epubs/deep100k.epub" "OEBPS/ch1.xhtml:10: " "nested more than"
run 1 binary "$TINGSHU" text epubs/binary.epub &&
	err_has binary "epubs/binary.epub" "OEBPS/ch2.xhtml is not text"
for c in opf_entities opf_deep; do
	run 1 "$c" "$TINGSHU" text "epubs/$c.epub" || continue
	err_has "$c" "epubs/$c.epub" "OEBPS/content.opf:" "cannot be read whole"
	grep -q "spine lists no document" "$RUN_ERR" && fail "$c: says the spine lists nothing"
done
grep -q "entity" logs/opf_entities.err || fail "opf_entities: the entities not named"
grep -q "depth" logs/opf_deep.err || fail "opf_deep: the depth not named"

# A build: the same error, exit 1, the good book beside it built.
run 1 build "$TINGSHU" build -q -j1 --loudness off -o out epubs/binary.epub epubs/deep255.epub
err_has build "epubs/binary.epub" "is not text"
[ "$(ls out/*.wav 2>/dev/null | wc -l)" -eq 2 ] || fail "build: not the 2 chapters of deep255: $(ls out)"

e2e_finish
