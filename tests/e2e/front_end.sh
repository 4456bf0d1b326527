#!/bin/bash
# e2e_front_end: what `tingshu text` prints is what `build` speaks, on the
# messy text people have: a web-scraped chapter with markup, lookalikes,
# numbers and English, and characters the voice cannot read (reported once
# per chapter with counts, never silently dropped).
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq

cat >web.txt <<'TXT'
<p>第3章&nbsp;&nbsp;风起</p>
<p>他在2024-03-05上午9:05说䦤：&ldquo;这次涨了25%，花了￥1,299！&rdquo;</p>
<div>最新章节请访问 www.example.com 阅读</div>
====分割线====
他喜欢NBA，还有𠀀𠀀和あ。
TXT

run 0 text "$TINGSHU" text web.txt
# The site's line is not spoken at all (boilerplate.txt), not only its URL.
want='第三章 风起
他在二零二四年三月五日上午九点零五分说道：“这次涨了百分之二十五，花了一千二百九十九元！”

分割线
他喜欢N B A，还有和。'
got=$(cat "$RUN_OUT")
[ "$got" = "$want" ] || fail "text: got
$got
want
$want"
err_has text "web.txt" "cannot read" "U+20000) ×2" "U+3042) ×1"
grep -q '[0-9<>&䦤𠀀]' "$RUN_OUT" && fail "text: digits, markup, lookalikes or unreadable characters left"

# The build speaks it and warns once for the chapter, with the counts.
run 0 build "$TINGSHU" build -q -j1 -o out web.txt
run 0 build_warn "$TINGSHU" build -j1 -o out2 web.txt
err_has build_warn "characters the voice cannot read" "U+20000) ×2" "U+3042) ×1"
n=$(grep -c "cannot read" "$RUN_ERR")
[ "$n" -eq 1 ] || fail "build: $n warnings about unreadable characters, expected 1 for the one chapter"
[ -s out/manifest.json ] && [ "$(jq '.chapters | length' out/manifest.json)" -eq 1 ] ||
	fail "build: expected one chapter in the manifest"
chars=$(jq '.chapters[0].chars' out/manifest.json)
check_wav "out/$(jq -r '.chapters[0].audio' out/manifest.json)" "$chars" "web chapter"
e2e_finish
