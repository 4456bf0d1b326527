#!/bin/bash
# e2e_encodings: text in UTF-8 (with and without a byte-order mark, with
# CRLF), UTF-16 and UTF-32 with a mark, GB18030, GBK and Big5 reads the same
# as UTF-8; short chapters are detected right; --encoding forces an
# encoding; wrong encodings and binary files are refused with a message
# that says where and what to do.  The encoded files are made here with
# iconv from the seeds.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq
command -v iconv >/dev/null 2>&1 || e2e_die "this test needs iconv (glibc's, in libc-bin)"

# Temporary files (decoded copies) go here; none may be left behind.
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
no_decoded_copies() {
	local left
	left=$(find "$TMPDIR" -mindepth 1 -print)
	[ -z "$left" ] || fail "$1: temporary files left in \$TMPDIR: $left"
}

SIMP=$SRC/seeds/004_5daa9d81391bddb7.txt
TRAD=$SRC/seeds/000_216cac3f054fd1e8.txt

# The traditional seed has Extension A lookalikes (䦤 for 道 ...), which
# Big5 cannot encode: repair them first, as ../shared/data/lookalikes.tsv
# says (these are the ones the seed uses).
sed 'y/㟧㦱㦳㦶㫇㰜㱒㳎㳓㵔㵕䗽䘓䛗䦣䦤/二亡之弓今功平用生令成好因重向道/' "$TRAD" >trad.txt
cp "$SIMP" simp.txt
iconv -f UTF-8 -t BIG5 trad.txt >/dev/null 2>&1 || e2e_die "the repaired traditional seed still has characters Big5 lacks"

# same_text NAME REF FILE [OPTIONS...]: 'tingshu text OPTIONS FILE' succeeds,
# says nothing, and prints what it prints for REF (with the same options but
# --encoding, which is for FILE only).
same_text() {
	local name=$1 ref=$2 file=$3
	shift 3
	local -a ref_opts=()
	[ "${1:-}" = --sentences ] && ref_opts=(--sentences)
	run 0 "ref-$name" "$TINGSHU" text "${ref_opts[@]}" "$ref" || return
	cp "$RUN_OUT" "logs/ref-$name.txt"
	run 0 "$name" "$TINGSHU" text "$@" "$file" || return
	[ -s "$RUN_OUT" ] || fail "$name: no text printed"
	cmp -s "logs/ref-$name.txt" "$RUN_OUT" ||
		{ fail "$name: the text differs from the UTF-8 file's"; diff "logs/ref-$name.txt" "$RUN_OUT" | head -5 >&2; }
	[ -s "$RUN_ERR" ] && fail "$name: wrote to stderr: $(head -c 300 "$RUN_ERR")"
	no_decoded_copies "$name"
}

# ---- one chapter in every encoding --------------------------------------
printf '\xEF\xBB\xBF' | cat - simp.txt >simp-bom.txt
sed 's/$/\r/' simp.txt >simp-crlf.txt
iconv -f UTF-8 -t GB18030 simp.txt >simp-gb18030.txt
iconv -f UTF-8 -t GBK simp.txt >simp-gbk.txt
iconv -f UTF-8 -t GBK simp-crlf.txt >simp-gbk-crlf.txt
{ printf '\xFF\xFE'; iconv -f UTF-8 -t UTF-16LE simp.txt; } >simp-utf16le.txt
{ printf '\xFE\xFF'; iconv -f UTF-8 -t UTF-16BE simp.txt; } >simp-utf16be.txt
{ printf '\xFF\xFE\0\0'; iconv -f UTF-8 -t UTF-32LE simp.txt; } >simp-utf32le.txt
for f in simp-bom simp-crlf simp-gb18030 simp-gbk simp-gbk-crlf simp-utf16le simp-utf16be simp-utf32le; do
	same_text "$f" simp.txt "$f.txt"
done
same_text sentences-gbk simp.txt simp-gbk.txt --sentences
cmp -s logs/ref-sentences-gbk.txt logs/ref-simp-gbk.txt && fail "--sentences printed the same as text"

iconv -f UTF-8 -t BIG5 trad.txt >trad-big5.txt
iconv -f UTF-8 -t GBK trad.txt >trad-gbk.txt
same_text trad-big5 trad.txt trad-big5.txt
# The front end repairs the lookalikes itself: the corrupted seed as it is
# reads the same as its repaired Big5 copy.
same_text trad-big5-vs-seed "$TRAD" trad-big5.txt
same_text trad-gbk trad.txt trad-gbk.txt

# ---- short chapters --------------------------------------------------------
# N characters from the middle of a seed (bash counts characters in UTF-8).
simp_text=$(<simp.txt)
trad_text=$(<trad.txt)
for n in 50 200; do
	printf '%s\n' "${simp_text:300:n}" >"short-simp-$n.txt"
	printf '%s\n' "${trad_text:300:n}" >"short-trad-$n.txt"
	iconv -f UTF-8 -t GBK "short-simp-$n.txt" >"short-simp-$n-gbk.txt"
	iconv -f UTF-8 -t BIG5 "short-trad-$n.txt" >"short-trad-$n-big5.txt"
	iconv -f UTF-8 -t GBK "short-trad-$n.txt" >"short-trad-$n-gbk.txt"
	same_text "short-simp-$n-gbk" "short-simp-$n.txt" "short-simp-$n-gbk.txt"
	same_text "short-trad-$n-big5" "short-trad-$n.txt" "short-trad-$n-big5.txt"
	same_text "short-trad-$n-gbk" "short-trad-$n.txt" "short-trad-$n-gbk.txt"
done
# A sentence of a Big5 book that uchardet alone takes for GB18030.
printf '%s\n' "${trad_text:644:50}" >short-trad-644.txt
iconv -f UTF-8 -t BIG5 short-trad-644.txt >short-trad-644-big5.txt
same_text short-trad-644-big5 short-trad-644.txt short-trad-644-big5.txt

# ---- standard input ------------------------------------------------------
run 0 stdin-gbk bash -c '"$1" text - <"$2"' _ "$TINGSHU" simp-gbk.txt
cmp -s logs/ref-simp-gbk.txt "$RUN_OUT" || fail "stdin: GBK on standard input reads differently"
no_decoded_copies stdin-gbk

# ---- --encoding ----------------------------------------------------------
same_text forced-gb18030 simp.txt simp-gbk.txt --encoding GB18030
same_text forced-big5 trad.txt trad-big5.txt --encoding big5
iconv -f UTF-8 -t UTF-16LE simp.txt >simp-utf16le-nomark.txt
same_text forced-utf16le simp.txt simp-utf16le-nomark.txt --encoding UTF-16LE
# Without --encoding, UTF-16 with no mark has NUL bytes: refused, with a hint.
run 1 utf16-nomark "$TINGSHU" text simp-utf16le-nomark.txt
err_has utf16-nomark simp-utf16le-nomark.txt "binary file, not text" "--encoding UTF-16LE"

# A wrong encoding given: the line and byte of the first fault, and what to do.
{ printf '第一行\n第二行\n'; cat short-simp-50.txt; } | iconv -f UTF-8 -t GBK >three-lines-gbk.txt
run 1 forced-utf8 "$TINGSHU" text --encoding UTF-8 three-lines-gbk.txt
err_has forced-utf8 "three-lines-gbk.txt:1:" "invalid UTF-8 at byte 0" "--encoding"
# (Most GBK text is valid Big5 byte for byte; full-width letters are not.)
printf 'line one\nline two\n他说：ＯＫ。\n' | iconv -f UTF-8 -t GBK >ascii-then-gbk.txt
run 1 forced-big5 "$TINGSHU" text --encoding BIG5 ascii-then-gbk.txt
err_has forced-big5 "ascii-then-gbk.txt:3:" "invalid BIG5 at byte 24" "--encoding"
[ -s "$RUN_OUT" ] && fail "forced-big5: printed text for a file it refused"
no_decoded_copies forced-big5
# A detected encoding with a bad byte: where, and the same advice.
{ cat simp-gbk.txt; printf 'ab\x81\x20cd\n'; } >gbk-bad-byte.txt
lines=$(wc -l <simp-gbk.txt) # the seed has no newline at its end: the bad byte is on the last line
run 1 bad-byte "$TINGSHU" text gbk-bad-byte.txt
err_has bad-byte "gbk-bad-byte.txt:$((lines + 1)):" "invalid GB18030 at byte $(($(wc -c <simp-gbk.txt) + 2))" "--encoding"
no_decoded_copies bad-byte
# Unknown names are usage errors.
run 2 unknown-text "$TINGSHU" text --encoding NO-SUCH simp.txt
err_has unknown-text "unknown encoding 'NO-SUCH'"
run 2 unknown-build "$TINGSHU" build --encoding NO-SUCH -o out-unknown simp.txt
err_has unknown-build "unknown encoding 'NO-SUCH'"
[ -e out-unknown ] && fail "unknown-build: the output folder was made"

# ---- not text ------------------------------------------------------------
head -c 8192 /dev/urandom >random.bin
run 1 binary "$TINGSHU" text random.bin
err_has binary random.bin "binary file, not text"
head -c 8192 /dev/urandom | tr -d '\000' >random-nonul.bin
run 1 binary-nonul "$TINGSHU" text random-nonul.bin
err_has binary-nonul random-nonul.bin "binary file, not text"
printf 'Le caf\xe9 de la rue \xe9tait ferm\xe9.\n' >latin1.txt
run 1 latin1 "$TINGSHU" text latin1.txt
err_has latin1 "latin1.txt:1:" "not GB18030 or Big5" "--encoding"
no_decoded_copies not-text

# ---- a book in GBK, built --------------------------------------------------
mkdir gbk
iconv -f UTF-8 -t GBK "$SRC/tests/e2e/data/short_book.txt" >gbk/short_book.txt
run 0 dry-utf8 "$TINGSHU" build --dry-run "$SRC/tests/e2e/data/short_book.txt"
cut -f1,3- "$RUN_OUT" >logs/dry-utf8.chapters
run 0 dry-gbk "$TINGSHU" build --dry-run gbk/short_book.txt
cut -f1,3- "$RUN_OUT" >logs/dry-gbk.chapters
cmp -s logs/dry-utf8.chapters logs/dry-gbk.chapters ||
	fail "dry-run: the GBK book has other chapters than the UTF-8 one: $(diff logs/dry-utf8.chapters logs/dry-gbk.chapters | head -5)"
run 0 build-gbk "$TINGSHU" build -q -j2 -o out gbk/short_book.txt
mapfile -t titles < <(jq -r '.chapters[].title' out/manifest.json 2>/dev/null)
want=('第一章 出门' '第二章 路上' '第三章 进城' '第四章 客栈')
[ "${titles[*]}" = "${want[*]}" ] || fail "build-gbk: titles '${titles[*]}', expected '${want[*]}'"
jq -e '[.chapters[].source] | all(. == "gbk/short_book.txt")' out/manifest.json >/dev/null 2>&1 ||
	fail "build-gbk: chapter sources are $(jq -c '[.chapters[].source]' out/manifest.json), expected the GBK file's name"
mapfile -t audio < <(jq -r '.chapters[].audio' out/manifest.json 2>/dev/null)
[ "${#audio[@]}" -eq 4 ] || fail "build-gbk: ${#audio[@]} audio files in the manifest, expected 4"
for a in "${audio[@]}"; do
	[ -f "out/$a" ] || { fail "build-gbk: $a missing"; continue; }
	check_wav "out/$a" "" "build-gbk $a"
done
no_temp_files out build-gbk
no_decoded_copies build-gbk

e2e_finish
