#!/bin/bash
# e2e_book: a whole book in one file is split at its chapter headings, with
# the text before the first heading as front matter (file 000), the book
# title from the 《…》 line, and chapters in book order.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq

# data/book.txt: 《测试之书》, an author line, a preface, then
#   第一章 开端 / 第二章<U+3000>风起 / 第一卷 上部 + 第三章 夜宿 / 第十回 结局 / 番外一 后来
cp "$SRC/tests/e2e/data/book.txt" 测试.txt || e2e_die "cannot copy the test book"
grep -q $'第二章\u3000风起' 测试.txt || e2e_die "test book lost its full-width space"

# The expected files, in order.  The volume heading directly followed by a
# chapter heading must not make an empty chapter of its own: chapter 3 is
# the one that holds 第三章 (its title may carry the volume too), and the
# numbered chapters after it keep their volume in their titles (番外, with
# no number, stands outside the volumes).
expect_names=(
	'000-测试之书.wav'
	'001-第一章_开端.wav'
	'002-第二章_风起.wav'
	'003-*第三章_夜宿.wav'
	'004-第一卷_上部_第十回_结局.wav'
	'005-番外一_后来.wav'
)
expect_titles=('测试之书' '第一章 开端' '第二章 风起' '*第三章 夜宿' '第一卷 上部 第十回 结局' '番外一 后来')

# --- dry run: lists the chapters, builds nothing --------------------------
run 0 dry "$TINGSHU" build --dry-run -o dry_out 测试.txt
[ -e dry_out ] && fail "--dry-run made the output folder: $(ls -A dry_out | tr '\n' ' ')"
grep -q '测试之书' "$RUN_OUT" || fail "--dry-run output does not name the book 测试之书"
mapfile -t dry_names < <(grep -o '[0-9][0-9][0-9]-[^[:space:]]*\.wav' "$RUN_OUT")
if [ "${#dry_names[@]}" -ne 6 ]; then
	fail "--dry-run lists ${#dry_names[@]} chapter files, expected 6:"
	sed 's/^/  | /' "$RUN_OUT" >&2
fi
for i in "${!expect_names[@]}"; do
	# shellcheck disable=SC2053
	[[ "${dry_names[$i]:-}" == ${expect_names[$i]} ]] ||
		fail "--dry-run file $i is '${dry_names[$i]:-}', expected '${expect_names[$i]}'"
done

# --- real build -------------------------------------------------------------
run 0 build "$TINGSHU" build -q -j2 -o out 测试.txt || e2e_finish
M=out/manifest.json
jq -e . "$M" >/dev/null 2>&1 || e2e_die "manifest.json missing or not JSON"
title=$(jq -r .title "$M")
[ "$title" = 测试之书 ] || fail "manifest title is '$title', expected 测试之书 (from the 《》 line)"

mapfile -t audio < <(jq -r '.chapters[].audio' "$M")
mapfile -t titles < <(jq -r '.chapters[].title' "$M")
mapfile -t idx < <(jq -r '.chapters[].index' "$M")
[ "${#audio[@]}" -eq 6 ] || fail "manifest has ${#audio[@]} chapters, expected 6: ${titles[*]}"
for i in "${!expect_names[@]}"; do
	# shellcheck disable=SC2053
	[[ "${audio[$i]:-}" == ${expect_names[$i]} ]] ||
		fail "chapter $i audio is '${audio[$i]:-}', expected '${expect_names[$i]}'"
	# shellcheck disable=SC2053
	[[ "${titles[$i]:-}" == ${expect_titles[$i]} ]] ||
		fail "chapter $i title is '${titles[$i]:-}', expected '${expect_titles[$i]}'"
	[ "${idx[$i]:-}" = "$i" ] || fail "chapter $i has index '${idx[$i]:-}'"
	if [ -z "${audio[$i]:-}" ] || [ ! -f "out/${audio[$i]}" ]; then
		fail "chapter $i: file out/${audio[$i]:-} missing"
	fi
	[ "${dry_names[$i]:-x}" = "${audio[$i]:-y}" ] ||
		fail "chapter $i: --dry-run said '${dry_names[$i]:-}', the build made '${audio[$i]:-}'"
done
# The volume heading alone is not a chapter.
for t in "${titles[@]}"; do
	[ "$t" = '第一卷 上部' ] && fail "the volume heading 第一卷 上部 became a chapter of its own"
done
jq -e '.chapters[0].front_matter == true' "$M" >/dev/null ||
	fail "chapter 0 is not marked as front matter"
jq -e '[.chapters[1:][] | .front_matter] | all(. == false)' "$M" >/dev/null ||
	fail "a chapter after the front matter is marked as front matter"
jq -e '[.chapters[].source] | all(test("测试.txt"))' "$M" >/dev/null ||
	fail "chapter sources do not name the book file"

# Each chapter holds its own text: the lengths fit the book (the preface is
# short, chapter 3 the longest, the 番外 shortest).
jq -e '.chapters[0].chars < 40 and .chapters[3].chars > 25 and .chapters[5].chars < 25' "$M" >/dev/null ||
	fail "chapter lengths do not fit the book: $(jq -c '[.chapters[].chars]' "$M")"

# Audio: every chapter is speech of a length that fits its text (titles
# and pauses make short chapters longer, so only a lower bound here).
for i in "${!audio[@]}"; do
	[ -f "out/${audio[$i]}" ] || continue
	check_wav "out/${audio[$i]}" "" "chapter $i"
	md=$(jq ".chapters[$i].duration_s" "$M")
	fcmp "($md - $WAV_DURATION) < 0.01 && ($WAV_DURATION - $md) < 0.01" ||
		fail "chapter $i: manifest duration_s $md, file lasts $WAV_DURATION s"
	chars=$(jq ".chapters[$i].chars" "$M")
	fcmp "$WAV_DURATION >= $chars / 8" || fail "chapter $i: $WAV_DURATION s is short for $chars characters"
done

# Playlist in book order.
mapfile -t listed < <(grep -v '^#' out/playlist.m3u | grep -v '^[[:space:]]*$' | tr -d '\r')
[ "${listed[*]}" = "${audio[*]}" ] || fail "playlist order '${listed[*]}' is not the book order '${audio[*]}'"

# The read-along page lists the chapters in book order, linked to their
# audio (the browser test, tests/browser, checks what the page does).
P=out/index.html
if [ -f "$P" ]; then
	grep -q '<h1>测试之书</h1>' "$P" || fail "index.html does not show the book title"
	mapfile -t linked < <(grep -o '<li><a href="[^"]*"' "$P" | sed 's/^<li><a href="//; s/"$//')
	[ "${linked[*]}" = "${audio[*]}" ] ||
		fail "index.html links '${linked[*]}', not the chapters in book order '${audio[*]}'"
	grep -qE '(src|href)="(https?:|//)' "$P" && fail "index.html links outside the folder"
else
	fail "no index.html in the output folder"
fi

no_temp_files out book
e2e_finish
