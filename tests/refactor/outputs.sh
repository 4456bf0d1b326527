#!/bin/bash
# Everything tingshu makes, from one binary, for a refactoring's before and
# after: every audio format, the sentence timing files, the whole-book M4B
# and EPUB, --dialogue voices, an EPUB, a GB18030 file, standard input and a
# web novel as inputs, 'text' (--dropped, --keep-notes), 'pinyin',
# 'speakers' (and --explain), --dry-run, --format m4a, a second
# (up to date) build, an incremental edit, errors of bad input, 'voices' and
# every --help.  Each run's standard output, standard error and exit status
# are kept as files, and every file it made is listed with its md5 in
# SUMS; two binaries that make the same SUMS make the same outputs.
# same_outputs.sh compares two revisions this way.
#
# Usage: outputs.sh TINGSHU WORKDIR
#   TINGSHU  the binary (it finds its voices as usual: beside it in a build)
#   WORKDIR  made (must not exist); WORKDIR/SUMS is the result
set -euo pipefail
ts=$(realpath "${1:?usage: outputs.sh TINGSHU WORKDIR}")
work=${2:?usage: outputs.sh TINGSHU WORKDIR}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
[ -x "$ts" ] || { echo "outputs: $ts is not a program" >&2; exit 2; }
[ -e "$work" ] && { echo "outputs: $work exists" >&2; exit 2; }
mkdir -p "$work"
cd "$work"

# The inputs, under relative names (the manifests and messages name them).
mkdir -p in/seeds in/dialogue in/cast
cp "$top"/seeds/*.txt in/seeds/
cp "$top/tests/e2e/data/short_book.txt" in/short.txt
cp "$top/tests/e2e/data/book.txt" in/book.txt
iconv -f UTF-8 -t GB18030 in/short.txt >in/short-gb.txt
# Dialogue in curly, corner and straight marks, one unpaired.
cat >in/dialogue/book.txt <<'TXT'
第一章 夫人

王夫人笑道：“今天天气真好，我们到园子里去走一走，看看花，再回来喝茶。”
王夫人又道：“你们都来吧，别让我一个人等着，天黑以前一定要回来。”
宝玉道：「我也去。」黛玉冷笑道："你去做什么？
众人都去了。刘备问曰："何时动身？"关羽答曰："明日。"

第二章 回来

傍晚，众人回来。王夫人道：“好累。”凤姐笑道：“太太歇着吧。”
TXT
cp in/dialogue/book.txt in/cast/book.txt
printf '王夫人\tcmn-m1\n# a comment\n凤姐 王熙凤\tcmn-f2\n' >in/cast/cast.txt
# Messy web text: markup, numbers, lookalikes, junk, Latin.
cat >in/messy.txt <<'TXT'
《测试之书》
作者：某人

第1章 数字与符号
<p>他在2024-03-05花了3.5元买了25%的股份，电话13812345678。</p>
温度是-5℃，跑了3-5km，1644年，守了15年，9:05出门，3/4的人&nbsp;同意。
䦤路□□很长，ＡＢＣ和NASA都说OK。http://www.example.com 记住本站
第2章　银行
他在银行工作，长大以后重新开始。一个人不去，不对。
TXT
# A web novel: volumes whose chapter numbers restart, big chapter numbers,
# the site's and the author's lines, a heading with a request, a chapter
# posted twice in a row, traditional characters.
cat >in/webnovel.txt <<'TXT'
第一卷 风起
第1章 初到（求收藏）
天才一秒记住本站地址：ｗｗｗ．ｘｘ．ｃｏｍ 最快更新！
他看了看手机屏幕上的消息，决定明天再回复。
PS：新书上传，求推荐票！求收藏！
（本章完）
第2章 月票
店里的月票卖完了，老板说下个月再更新货品。
本章未完，请点击下一页继续阅读》》
第2章 月票
店里的月票卖完了，老板说下个月再更新货品。
第二卷 雲湧
第1章 重來
作者有話說：今天兩更，晚上還有一章。
她是一位作者，每天寫三千字。
第1234章 大结局
上一页 目录 下一页
故事到这里就结束了。
TXT
mkdir -p in/folder
printf '第十章 十\n十。\n' >in/folder/10.txt
printf '二。\n' >in/folder/2.txt
printf '一。\n' >in/folder/1.txt
printf '词\tci2\n银行\tyin2 hang2\n' >in/lexicon.txt

n=0
# run NAME CMD...: run a command, keeping its outputs and status as files.
run() {
	local name=$1
	shift
	n=$((n + 1))
	local rc=0
	"$@" >"log/$name.out" 2>"log/$name.err" </dev/null || rc=$?
	echo "$rc" >"log/$name.rc"
}
# run_in NAME FILE CMD...: the same with FILE as standard input.
run_in() {
	local name=$1 file=$2
	shift 2
	n=$((n + 1))
	local rc=0
	"$@" >"log/$name.out" 2>"log/$name.err" <"$file" || rc=$?
	echo "$rc" >"log/$name.rc"
}
mkdir -p log out

# Help and lists.
run help "$ts" --help
run version "$ts" --version
for c in build text pinyin speakers voices; do
	run "help_$c" "$ts" help "$c"
	run "help2_$c" "$ts" "$c" --help
done
run voices "$ts" voices
run noargs "$ts"
run badcmd "$ts" frobnicate
run badopt "$ts" build --frobnicate x

# The front end.
for f in in/seeds/*.txt in/messy.txt in/dialogue/book.txt in/short-gb.txt; do
	b=$(basename "$f" .txt)
	run "text_$b" "$ts" text "$f"
	run "sent_$b" "$ts" text --sentences "$f"
	run "pinyin_$b" "$ts" pinyin "$f"
done
run pinyin_lex "$ts" pinyin --lexicon in/lexicon.txt in/messy.txt
run text_web "$ts" text in/webnovel.txt
run text_web_dropped "$ts" text --dropped in/webnovel.txt
run text_web_notes "$ts" text --keep-notes in/webnovel.txt
run pinyin_web "$ts" pinyin in/webnovel.txt
run text_folder "$ts" text in/folder
run_in text_stdin in/short.txt "$ts" text -
run speakers "$ts" speakers in/dialogue/book.txt
run speakers_explain "$ts" speakers --explain in/dialogue/book.txt
run speakers_cast "$ts" speakers in/cast/book.txt
run speakers_seeds "$ts" speakers in/seeds

# Builds.  -j2 where the output must not depend on it.
run b_seeds "$ts" build -j2 -o out/seeds --timing srt,vtt,lrc,json --book m4b,epub in/seeds
run b_seeds_again "$ts" build -j2 -o out/seeds --timing srt,vtt,lrc,json --book m4b,epub in/seeds
run dry_seeds "$ts" build --dry-run -o out/seeds --force in/seeds
for fmt in flac ogg mp3 opus; do
	run "b_$fmt" "$ts" build -j2 -q -o "out/$fmt" --format "$fmt" in/short.txt
done
run b_44k "$ts" build -j2 -o out/44k --sample-rate 44100 --rate 1.25 --sentence-pause 500 \
	--loudness -16 --true-peak -1 --author 某人 in/short.txt
run b_quiet_off "$ts" build -j1 -o out/off --loudness off --timing none in/book.txt
run b_messy "$ts" build -j2 -v -o out/messy --lexicon in/lexicon.txt --book m4b in/messy.txt
run b_gb "$ts" build -j2 -o out/gb in/short-gb.txt
run b_m4a "$ts" build -j2 -o out/m4a --format m4a --book m4b in/short.txt
run b_web "$ts" build -j2 -o out/web --timing srt in/webnovel.txt
run b_web_notes "$ts" build -j2 -o out/web_notes --keep-notes --loudness off in/webnovel.txt
run_in b_stdin in/short.txt "$ts" build -j2 -o out/stdin -
run b_folder "$ts" build -j2 -o out/folder in/folder
run b_epub_in "$ts" build -j2 -o out/epub_in --book epub out/seeds/seeds.epub
run b_dialogue "$ts" build -j2 -o out/dialogue --dialogue voices --timing srt,vtt,json \
	--book m4b,epub in/dialogue/book.txt
run b_cast "$ts" build -j2 -o out/cast in/cast/book.txt
run b_chapters "$ts" build -j1 -o out/parts --chapters 2,4 in/short.txt
run dry_parts "$ts" build --dry-run -o out/parts in/short.txt
run b_shard "$ts" build -j1 -o out/parts --shard 1/2 in/short.txt
run b_parts_rest "$ts" build -j1 -o out/parts in/short.txt
# An edit of one chapter.
cp in/short.txt in/short-edit.txt
sed -i 's/十分热闹/非常热闹/' in/short-edit.txt
mkdir -p out/edit
run b_edit1 "$ts" build -j2 -o out/edit in/short.txt
run b_edit2 "$ts" build -j2 -v -o out/edit in/short-edit.txt

# Bad input.
run e_missing "$ts" build -o out/e1 in/nothing.txt
run e_voice "$ts" build -o out/e2 --voice nosuch in/short.txt
run e_format "$ts" build -o out/e3 --format aiff in/short.txt
run e_rate "$ts" build -o out/e4 --rate 9 in/short.txt
run e_chapters "$ts" build -o out/e5 --chapters 9-3 in/short.txt
run e_book "$ts" build -o out/e6 --book mp4 in/short.txt
run e_fifo "$ts" text /dev/null
printf '\xff\xfe\x00\x00junk' >in/binary.txt
run e_binary "$ts" text in/binary.txt

# What says when or where, not what: the wall time and peak memory in the
# summaries, the order in which -j2's workers finished (-v lines sorted),
# the binary's folder (voices are found beside it), and the EPUBs' date of
# modification (their chapters' files' time), and so the EPUB's size in
# the folder's state (the date is compressed with the rest).
bindir=$(dirname "$ts")
for f in log/*.err log/*.out; do
	sed -i -E -e "s|$bindir|BINDIR|g" -e 's/ in [0-9.]+ (s|ms|min [0-9]+ s) into / in T into /' \
		-e 's/peak memory: [0-9]+ KB/peak memory: M KB/' -e 's/^tingshu: \[[0-9]+\//tingshu: [/' "$f"
	case $f in log/b_*.err) LC_ALL=C sort -o "$f" "$f" ;; esac
done
epub_sum() { # FILE: its members, in order, and their content less the date
	unzip -Z1 "$1"
	unzip -Z1 "$1" | while read -r m; do
		unzip -p "$1" "$m" | sed -E 's|<meta property="dcterms:modified">[^<]*</meta>||'
	done
}
# What was made, minus what names a process or a moment: the lock files.
find . -path '*/.tingshu/locks' -prune -o -type f ! -path ./SUMS ! -path ./SUMS.tmp -print |
	LC_ALL=C sort | while read -r f; do
	case $f in
	*/.tingshu/book.epub) sum=$(cut -d' ' -f1,3- "$f" | md5sum | cut -d' ' -f1) ;;
	*/.tingshu/*) sum=$(md5sum <"$f" | cut -d' ' -f1) ;;
	*.epub) sum=$(epub_sum "$f" | md5sum | cut -d' ' -f1) ;;
	*) sum=$(md5sum <"$f" | cut -d' ' -f1) ;;
	esac
	printf '%s  %s\n' "$sum" "$f"
done >SUMS.tmp
mv SUMS.tmp SUMS
echo "outputs: $n runs, $(wc -l <SUMS) files listed in $work/SUMS"
