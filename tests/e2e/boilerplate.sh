#!/bin/bash
# e2e_webnovel: a web novel's site and uploader lines are not spoken (issue
# 34): `tingshu text` prints them as empty lines and `--dropped` lists them
# as FILE:LINE; --keep-notes speaks the author's notes but not the site's
# ads; a request tacked on a heading leaves the chapter's title; a build
# speaks (and times) none of it, and --keep-notes makes only the chapters
# with a note again (and the short ones spoken after them in one process).
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq

cat >novel.txt <<'TXT'
天才一秒记住本站地址：[青云阁] https://www.qingyunge.com 最快更新！无广告！
第一章 山门
林照背着竹篓上了山。
手机响了，编辑说这个月的月票榜，他又掉到第十名了。
（本章完）
PS：新书上传，求推荐票！求收藏！
第二章 试炼（求月票）
信的末尾写着：“PS：梅花开时，我便回来。”
本章未完，请点击下一页继续阅读》》
长老抬手一挥，石柱亮了起来。
TXT

run 0 text "$TINGSHU" text novel.txt
want='
第一章 山门
林照背着竹篓上了山。
手机响了，编辑说这个月的月票榜，他又掉到第十名了。


第二章 试炼
信的末尾写着：“P S：梅花开时，我便回来。”

长老抬手一挥，石柱亮了起来。'
got=$(cat "$RUN_OUT")
[ "$got" = "$want" ] || fail "text: got
$got
want
$want"
[ "$(wc -l <"$RUN_OUT")" -eq 10 ] || fail "text: not one output line per input line"

run 0 dropped "$TINGSHU" text --dropped novel.txt
want='novel.txt:1: dropped (site ad): 天才一秒记住本站地址：[青云阁] https://www.qingyunge.com 最快更新！无广告！
novel.txt:5: dropped (end marker): （本章完）
novel.txt:6: dropped (author'"'"'s note): PS：新书上传，求推荐票！求收藏！
novel.txt:7: dropped part (author'"'"'s note): （求月票）
novel.txt:9: dropped (end marker): 本章未完，请点击下一页继续阅读》》'
[ "$(cat "$RUN_OUT")" = "$want" ] || fail "--dropped: got
$(cat "$RUN_OUT")
want
$want"

run 0 notes "$TINGSHU" text --keep-notes novel.txt
grep -q '新书上传，求推荐票！求收藏！' "$RUN_OUT" || fail "--keep-notes: the author's note is not spoken"
grep -q '第二章 试炼（求月票）' "$RUN_OUT" || fail "--keep-notes: the heading's request is not spoken"
grep -q '本站\|本章' "$RUN_OUT" && fail "--keep-notes: a site ad or marker is spoken"
run 0 notes_dropped "$TINGSHU" text --keep-notes --dropped novel.txt
[ "$(grep -c dropped "$RUN_OUT")" -eq 3 ] || fail "--keep-notes --dropped: expected the 3 lines of the site"

# pinyin agrees: no syllable of the dropped lines (本站 ben3 zhan4).
run 0 pinyin "$TINGSHU" pinyin novel.txt
grep -q 'zhan4' "$RUN_OUT" && fail "pinyin: the site's line is read"

# The build: titles without the request, cues without the boilerplate.
printf '第三章 下山\n（本章完）\n师父说，下山历练，三年为期。\n' >>novel.txt
printf '第四章 山下\n（本章完）\n山下的集市上人来人往。\n' >>novel.txt
run 0 build "$TINGSHU" build -q -j2 --loudness off --timing vtt -o out novel.txt
# The front matter is a site ad only: it names no book and is not spoken.
[ "$(jq -r '[.chapters[].title] | join("|")' out/manifest.json)" = "第一章 山门|第二章 试炼|第三章 下山|第四章 山下" ] ||
	fail "build: chapters $(jq -c '[.chapters[].title]' out/manifest.json), expected four, the second without its request"
[ "$(jq -r .title out/manifest.json)" = novel ] || fail "build: the book is named by a site ad"
cat out/*.vtt >cues.txt
grep -q '月票榜' cues.txt || fail "build: a story line is not timed"
grep -q '本章\|求推荐票\|求月票\|点击下一页' cues.txt && fail "build: boilerplate is spoken:
$(grep '本章\|求推荐票\|求月票\|点击下一页' cues.txt)"
# Chapters 1 (its note) and 2 (its title's request) are spoken otherwise:
# made again; so is chapter 3, short, spoken after chapter 2 in one process
# (chapterkey.h).  Chapter 4 has only a marker, still dropped, and is the
# first of its group of four (the front matter is the book's first): kept.
run 0 rebuild "$TINGSHU" build -j2 --loudness off --timing vtt --keep-notes -o out novel.txt
grep -q 'built 3 of 4 chapters' "$RUN_ERR" || fail "--keep-notes: expected 3 of 4 chapters made again:
$(cat "$RUN_ERR")"
grep -q '求推荐票' out/*.vtt || fail "--keep-notes: the note is not spoken in the build"

# A part of only the site's lines: the warning says so (not "only
# punctuation or symbols"), and says it again when built again.
printf '天才一秒记住本站地址：[青云阁] 最快更新！\n本书由青云阁整理\n第一章 山门\n他上了山。\n' >ad.txt
run 0 ad "$TINGSHU" build --loudness off -o ad ad.txt
err_has ad "ad.txt:1: chapter \"ad\" has nothing to speak: its only words are the site's or the uploader's, which are not spoken (see tingshu text --dropped)"
run 0 ad_again "$TINGSHU" build --loudness off -o ad ad.txt
err_has ad_again "ad.txt:1: chapter \"ad\" has nothing to speak (no words, or only the site's: see tingshu text --dropped)"
e2e_finish
