#!/bin/bash
# e2e_webnovel: headings as web novels write them, seen through
# `build --dry-run` (the plan, nothing spoken): volume lines (第一卷, 卷三,
# VIP卷, one holding its first chapter's heading) whose chapters keep the
# volume in their titles, chapter numbers that start again in a new
# volume, 第1234章 and 第一千二百三十四章, story lines that only look like
# headings, and a chapter posted twice in a row, kept once with a warning
# that names FILE:LINE of the copy (tingshu text and pinyin do not print
# it either); built, a volume's name is spoken at
# its first chapter only.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"

cat >网文.txt <<'TXT'
《潜龙》
作者：某某

楔子
很多年前，山里有一条龙。
第一次见到那条龙的人，后来都成了说书的。

第一卷 潜龙在渊
第1章 少年
少年在山脚下醒来。
第三章里写的事，他那时还不知道。
第2章 下山
他下了山，沿着河走了三天三夜，鞋子磨破了，脚上起了泡。
路边的茶棚里坐着一个说书人，正讲到热闹的地方。
他谢过说书人，喝完了茶，又上路了，太阳已经落到山后面去了。
第2章 下山
他下了山，沿着河走了三天三夜，鞋子磨破了，脚上起了泡。
路边的茶棚里坐着一个说书人，正讲到热闹的地方。
他谢过说书人，喝完了茶，又上路了，太阳已经落到山后面去了。
第3章 雨夜
雨下了一夜。
第3章 雨夜
雨停了，天亮了，他走进了城里。
第一卷完
第二卷 风起云涌
第1章 入京
京城很大。
第二卷 风起云涌 第2章 见驾
皇帝召见了他。
卷三
第1234章 千章
一千多章以后。
第一千二百三十四章 又一千章
数字是中文的。
VIP卷 第１２３５章 全角
全角数字。
番外一 后来
后来的事情。
TXT

run 0 dry "$TINGSHU" build --dry-run -o out 网文.txt || e2e_finish
mapfile -t titles < <(awk -F'\t' 'NF >= 4 { sub(/ \(front matter\)$/, "", $4); print $4 }' "$RUN_OUT")
expect=(
	'潜龙'
	'楔子'
	'第一卷 潜龙在渊 第1章 少年'
	'第一卷 潜龙在渊 第2章 下山'
	'第一卷 潜龙在渊 第3章 雨夜'
	'第一卷 潜龙在渊 第3章 雨夜'
	'第二卷 风起云涌 第1章 入京'
	'第二卷 风起云涌 第2章 见驾'
	'卷三 第1234章 千章'
	'卷三 第一千二百三十四章 又一千章'
	'VIP卷 第１２３５章 全角'
	'番外一 后来'
)
[ "${#titles[@]}" -eq "${#expect[@]}" ] ||
	fail "--dry-run lists ${#titles[@]} chapters, expected ${#expect[@]}: $(printf '[%s] ' "${titles[@]}")"
for i in "${!expect[@]}"; do
	[ "${titles[$i]:-}" = "${expect[$i]}" ] ||
		fail "chapter $i is titled '${titles[$i]:-}', expected '${expect[$i]}'"
done
# File names: numbered in book order, so unique however titles repeat.
mapfile -t names < <(grep -o '^[0-9][0-9][0-9]-[^[:space:]]*\.wav' "$RUN_OUT")
[ "$(printf '%s\n' "${names[@]}" | sort -u | wc -l)" -eq "${#expect[@]}" ] ||
	fail "file names are not unique: ${names[*]}"
[ "${names[2]:-}" = '002-第一卷_潜龙在渊_第1章_少年.wav' ] || fail "file 2 is named '${names[2]:-}'"
[ "${names[6]:-}" = '006-第二卷_风起云涌_第1章_入京.wav' ] || fail "file 6 is named '${names[6]:-}'"

# The repeat: skipped, said with the file and the line of the copy; the
# same heading over other text (第3章, continued): kept, said too.
err_has dry '网文.txt:16: chapter "第一卷 潜龙在渊 第2章 下山" repeats the chapter at line 12; this copy is skipped'
err_has dry '网文.txt:22: heading "第一卷 潜龙在渊 第3章 雨夜" repeats the one at line 20'
[ "$(grep -c 'warning' "$RUN_ERR")" -eq 2 ] || { fail "expected two warnings"; show_err; }
# 第2章 holds its text once (3 lines, 79 characters), not twice.
grep -q $'^003-[^\t]*\t网文.txt:12\t79 chars\t' "$RUN_OUT" ||
	fail "chapter 3 is not 第2章 with its text once: $(sed -n 4p "$RUN_OUT")"

# tingshu text and pinyin agree with the build: the copy (lines 16-19)
# prints as empty lines, with the same warning; --dropped lists it.
for cmd in text pinyin; do
	run 0 $cmd "$TINGSHU" $cmd 网文.txt || e2e_finish
	[ "$(sed -n 16,19p "$RUN_OUT" | tr -d '\n')" = '' ] ||
		fail "$cmd prints the copy: $(sed -n 16,19p "$RUN_OUT")"
	[ -n "$(sed -n 12p "$RUN_OUT")" ] && [ -n "$(sed -n 20p "$RUN_OUT")" ] ||
		fail "$cmd leaves out what is not the copy: $(sed -n 12,20p "$RUN_OUT")"
	[ "$(wc -l <"$RUN_OUT")" -eq 38 ] || fail "$cmd prints $(wc -l <"$RUN_OUT") lines, not 38"
	err_has $cmd '网文.txt:16: chapter "第一卷 潜龙在渊 第2章 下山" repeats the chapter at line 12; this copy is skipped'
done
run 0 dropped "$TINGSHU" text --dropped 网文.txt || e2e_finish
grep -qx '网文.txt:16: dropped (chapter repeated): 第2章 下山' "$RUN_OUT" ||
	fail "--dropped does not list the copy: $(cat "$RUN_OUT")"
[ "$(grep -c 'chapter repeated' "$RUN_OUT")" -eq 4 ] || fail "--dropped: $(cat "$RUN_OUT")"

# Spoken, a volume's name is said at its first chapter only: the first
# cue (the heading as spoken) of each chapter's .srt; the titles keep it.
printf '第一卷 潜龙在渊\n第1章 少年\n他醒了。\n第2章 下山\n他走了。\n第二卷 风起云涌 第1章 入京\n京城很大。\n第二卷 风起云涌 第2章 见驾\n皇帝来了。\n' >卷.txt
run 0 vol "$TINGSHU" build --loudness off --timing srt,vtt --book epub -o vol 卷.txt || e2e_finish
heard=$(for f in vol/*.srt; do sed -n 3p "$f"; done | paste -sd '|')
[ "$heard" = '第一卷 潜龙在渊 第1章 少年|第2章 下山|第二卷 风起云涌 第1章 入京|第2章 见驾' ] ||
	fail "the chapters' spoken headings are: $heard"
[ -f vol/002-第一卷_潜龙在渊_第2章_下山.wav ] || fail "chapter 2's file: $(ls vol)"
# The EPUB's heading keeps the volume, unspoken, before the heading spoken.
epub=$(ls vol/*.epub 2>/dev/null | head -1)
[ -n "$epub" ] && unzip -p "$epub" EPUB/c002.xhtml | grep -qF '<h1>第一卷 潜龙在渊 <span id="s1">第2章 下山</span></h1>' ||
	fail "the EPUB's chapter 2 heading: $([ -n "$epub" ] && unzip -p "$epub" EPUB/c002.xhtml | grep h1)"
e2e_finish
