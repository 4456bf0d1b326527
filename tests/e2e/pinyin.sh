#!/bin/bash
# e2e_pinyin: 'tingshu pinyin' prints one line per input line and one token
# per Han character, those said for digits and symbols in brackets; user lexicons (--lexicon, lexicon.txt beside the book)
# override the voice's readings, with warnings naming file:line for bad
# lines; a --lexicon that cannot be read is a usage error; the g2pM model
# decides where no word does, and --upto=sandhi leaves it out; and a build
# speaks what 'pinyin' prints (a user's lexicon changes the audio).
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq

# --- the format ---------------------------------------------------------------
mkdir book
printf '银行行长长大了。\n\nNBA球星说：“1644年，还钱！”\n頭髮很長。\n他/她说：银行&行长\n' >book/ch.txt
run 0 pinyin "$TINGSHU" pinyin book/ch.txt
want='yin2 hang2 hang2 zhang3 zhang3 da4 le5

qiu2 xing1 shuo1 [yi1] [liu4] [si4] [si4] nian2 huan2 qian2
tou2 fa5 hen3 chang2
ta1 [huo4] ta1 shuo1 yin2 hang2 [he2] hang2 zhang3'
[ "$(cat "$RUN_OUT")" = "$want" ] || fail "pinyin: got
$(cat "$RUN_OUT")
want
$want"
[ -s "$RUN_ERR" ] && fail "pinyin wrote to stderr: $(head -c 300 "$RUN_ERR")"
# One token per Han character of the spoken text, on every line; those
# not in brackets one per Han character of the text as written.
run 0 text "$TINGSHU" text book/ch.txt
han_of() { printf '%s' "$1" | grep -oP '[\x{3400}-\x{4DBF}\x{4E00}-\x{9FFF}\x{F900}-\x{FAFF}]' | wc -l; }
paste -d '\t' book/ch.txt "$SCRATCH/logs/text.out" "$SCRATCH/logs/pinyin.out" | while IFS=$'\t' read -r b t p; do
	tok=$(printf '%s' "$p" | wc -w)
	own=$(printf '%s' "$p" | tr ' ' '\n' | grep -c '^[a-z]')
	[ "$(han_of "$t")" -eq "$tok" ] || echo "FAIL: '$t' has $(han_of "$t") Han characters and $tok tokens"
	[ "$(han_of "$b")" -eq "$own" ] || echo "FAIL: '$b' has $(han_of "$b") Han characters and $own own tokens"
done | grep -q FAIL && fail "pinyin: token count differs from the Han characters of the text"
syl='(\[[a-z]+[1-5]\]|[a-z]+[1-5])'
grep -qvE "^($syl( $syl)*)?\$" "$SCRATCH/logs/pinyin.out" &&
	fail "pinyin: a line is not syllables with tone digits separated by single spaces"
# The whole seeds, traditional and simplified: the same checks.
for s in "$SRC"/seeds/*.txt; do
	run 0 "seed_$(basename "$s")" "$TINGSHU" pinyin -q "$s"
	grep -qvE "^($syl( $syl)*)?\$" "$RUN_OUT" && fail "pinyin $s: malformed line"
	[ "$(awk 'END { print NR }' "$RUN_OUT")" -eq "$(awk 'END { print NR }' "$s")" ] ||
		fail "pinyin $s: line count differs"
done
grep -q 'hong2 cheng2 chou2' "$RUN_OUT" || fail "pinyin: 洪承畴 is not read hong2 cheng2 chou2"
run 0 help "$TINGSHU" pinyin --help
grep -q -- '--lexicon' "$RUN_OUT" || fail "pinyin --help does not mention --lexicon"
run 2 no_file "$TINGSHU" pinyin
run 2 bad_upto "$TINGSHU" pinyin --upto nothing book/ch.txt
err_has bad_upto "--upto"
# The model's second opinion: 柏 of a transliterated name, which no word
# decides, is bo2 by the model, bai3 by the default without it; --explain
# says so.
printf '苏丹伊斯迈柏特拉\n' >model.txt
run 0 model "$TINGSHU" pinyin model.txt
[ "$(cat "$RUN_OUT")" = "su1 dan1 yi1 si1 mai4 bo2 te4 la1" ] || fail "pinyin: the model did not read 柏 bo2"
run 0 no_model "$TINGSHU" pinyin --upto=sandhi model.txt
[ "$(cat "$RUN_OUT")" = "su1 dan1 yi1 si1 mai4 bai3 te4 la1" ] || fail "pinyin --upto=sandhi asked the model"
run 0 model_explain "$TINGSHU" pinyin --explain model.txt
grep -qE ' 柏=bo2/model\+[0-9.]+\(default=bai3\) ' "$RUN_OUT" || fail "pinyin --explain: no model+MARGIN(default=bai3) for 柏"

# --- user lexicons --------------------------------------------------------------
printf '# the book'"'"'s own\n银行\tyin2 xing2\n行长 hang2\n' >book/lexicon.txt
printf '长大\tchang2 da4\n头发\ttou2 fa4\n坏\tbad1 x\n' >mine.txt
run 0 lexicons "$TINGSHU" pinyin --lexicon mine.txt book/ch.txt
head -n 1 "$RUN_OUT" | grep -qx 'yin2 xing2 hang2 zhang3 chang2 da4 le5' ||
	fail "lexicons: line 1 is '$(head -n 1 "$RUN_OUT")'"
sed -n 4p "$RUN_OUT" | grep -qx 'tou2 fa4 hen3 chang2' ||
	fail "lexicons: a simplified entry does not read traditional text: '$(sed -n 4p "$RUN_OUT")'"
err_has lexicons "book/lexicon.txt:3:" "mine.txt:3:"
grep -qF 'lexicon.txt:2' "$RUN_ERR" && fail "lexicons: a good line was warned about"
run 0 lexicons_quiet "$TINGSHU" pinyin -q --lexicon mine.txt book/ch.txt
[ -s "$RUN_ERR" ] && fail "-q: lexicon warnings still printed"
run 2 missing_lexicon "$TINGSHU" pinyin --lexicon no-such.txt book/ch.txt
err_has missing_lexicon "no-such.txt"
[ -s "$RUN_OUT" ] && fail "missing --lexicon: output was printed"

# --- build speaks the pinyin: a lexicon that changes readings changes audio ---
printf '银行\n' >one.txt
run 0 build_plain "$TINGSHU" build -q -j1 -o out_plain one.txt
printf '银行\tyin2 xing2\n' >lex2.txt
run 0 build_lex "$TINGSHU" build -q -j1 --lexicon lex2.txt -o out_lex one.txt
a=out_plain/$(jq -r '.chapters[0].audio' out_plain/manifest.json 2>/dev/null)
b=out_lex/$(jq -r '.chapters[0].audio' out_lex/manifest.json 2>/dev/null)
check_wav "$a" "" "plain"
check_wav "$b" "" "lexicon"
cmp -s "$a" "$b" && fail "build --lexicon: 银行 as yin2 xing2 sounds the same as yin2 hang2"
# ... and one that gives the readings the voice already has does not.
printf '银行\tyin2 hang2\n' >lex3.txt
run 0 build_same "$TINGSHU" build -q -j1 --lexicon lex3.txt -o out_same one.txt
c=out_same/$(jq -r '.chapters[0].audio' out_same/manifest.json 2>/dev/null)
cmp -s "$a" "$c" || fail "build --lexicon with the voice's own readings changed the audio"
run 2 build_missing "$TINGSHU" build -q --lexicon no-such.txt -o out_missing one.txt
[ -e out_missing ] && fail "build with a missing --lexicon made the output folder"

e2e_finish
