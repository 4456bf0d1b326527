#!/bin/bash
# e2e_stdin: a whole book on standard input is split into its chapters, and
# 'tingshu text -' prints the spoken text of standard input.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq

cp "$SRC/tests/e2e/data/short_book.txt" book.txt || e2e_die "cannot copy the test book"

run 0 from_file "$TINGSHU" build -q -j1 -o out_file book.txt
run 0 from_stdin bash -c 'cat book.txt | "$1" build -q -j1 -o out_stdin -' _ "$TINGSHU"
n=$(jq '.chapters | length' out_stdin/manifest.json 2>/dev/null)
[ "$n" = 4 ] || fail "book on stdin: $n chapters in the manifest, expected 4"
mapfile -t titles < <(jq -r '.chapters[].title' out_stdin/manifest.json 2>/dev/null)
want=('第一章 出门' '第二章 路上' '第三章 进城' '第四章 客栈')
[ "${titles[*]}" = "${want[*]}" ] || fail "book on stdin: titles '${titles[*]}', expected '${want[*]}'"
# Same chapters and audio as from the file (-j1 both: this checks stdin,
# e2e_jobs_identical checks -j).
mapfile -t a_file < <(jq -r '.chapters[].audio' out_file/manifest.json 2>/dev/null)
mapfile -t a_stdin < <(jq -r '.chapters[].audio' out_stdin/manifest.json 2>/dev/null)
[ "${a_file[*]}" = "${a_stdin[*]}" ] || fail "stdin gives files '${a_stdin[*]}', the file gives '${a_file[*]}'"
for a in "${a_stdin[@]}"; do
	[ -f "out_stdin/$a" ] || { fail "stdin: $a missing"; continue; }
	check_wav "out_stdin/$a" "" "stdin $a"
	# The same audio; the album tag is the book's title, "stdin" here.
	[ -f "out_file/$a" ] && { [ "$(wav "out_file/$a" pcm_hash)" = "$(wav "out_stdin/$a" pcm_hash)" ] ||
		fail "stdin: $a differs from the build of the file"; }
done
jq -e '[.chapters[].source] | all(type == "string" and length > 0)' out_stdin/manifest.json >/dev/null 2>&1 ||
	fail "stdin: chapter sources are empty"
no_temp_files out_stdin stdin

# text -: one output line per input line, the chapter text present.
run 0 text_file "$TINGSHU" text book.txt
cp "$RUN_OUT" text_file.out
run 0 text_stdin bash -c '"$1" text - <book.txt' _ "$TINGSHU"
[ -s "$RUN_OUT" ] || fail "'tingshu text -' printed nothing"
grep -q '老槐树' "$RUN_OUT" || fail "'tingshu text -' does not print the text: $(head -c 300 "$RUN_OUT")"
grep -q '掌柜' "$RUN_OUT" || fail "'tingshu text -' lost the last chapter"
cmp -s text_file.out "$RUN_OUT" || fail "'tingshu text -' differs from 'tingshu text book.txt'"
in_lines=$(wc -l <book.txt)
out_lines=$(wc -l <"$RUN_OUT")
[ "$in_lines" -eq "$out_lines" ] || fail "'tingshu text -': $out_lines lines out for $in_lines lines in"
[ -s "$RUN_ERR" ] && fail "'tingshu text -' wrote to stderr: $(head -c 300 "$RUN_ERR")"

# Empty standard input: nothing to build.
run 1 empty_stdin bash -c '"$1" build -q -o out_empty - </dev/null' _ "$TINGSHU"
[ -s "$RUN_ERR" ] || fail "empty stdin: no message"
[ -n "$(find out_empty -name '*.wav' 2>/dev/null)" ] && fail "empty stdin: audio was made"

e2e_finish
