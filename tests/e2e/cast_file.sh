#!/bin/bash
# e2e_cast_file: a cast file of many lines is read in linear time (200,000
# lines well within 20 s, where every line used to be compared with every
# name before it); a garbage cast file gives the first 20 warnings and then
# how many more, as the text's do; a voice that does not exist (cmn-fX,
# ../x, /etc/passwd) is an error naming FILE:LINE, not a pool voice; a
# stop signal while a long cast file is read stops it.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"

mkdir book
printf '第一回 桃园结义\n\n刘备曰：“吾乃汉室宗亲。”张飞曰：“我愿同举大事。”\n' >book/book.txt

# 200,000 names of three characters (of 63 * 63 * 63), one a line.
# The characters are 3 bytes each in UTF-8: cut by bytes.
LC_ALL=C awk 'BEGIN {
	s = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥金木水火土日月星山川江河湖海风云雷电春夏秋冬东西南北"
	s = s "梅兰竹菊松柏桃李杏花草鸟鱼龙虎"
	n = length(s) / 3
	for (i = 0; i < 200000; i++) {
		a = int(i / (n * n)); b = int(i / n) % n; c = i % n
		printf "%s%s%s\tcmn-m%d\n", substr(s, 3 * a + 1, 3), substr(s, 3 * b + 1, 3),
		       substr(s, 3 * c + 1, 3), i % 4 + 1
	}
	print "刘备 玄德\tcmn-m3"
}' >big.txt
[ "$(wc -l <big.txt)" -eq 200001 ] || e2e_die "big.txt: $(wc -l <big.txt) lines"
run 0 big timeout -k 5 20 "$TINGSHU" speakers --cast big.txt book/book.txt
grep -q "	刘备	“吾乃汉室宗亲。”" "$RUN_OUT" || fail "big cast: 刘备 not read: $(head -c 300 "$RUN_OUT")"
[ -s "$RUN_ERR" ] && fail "big cast: warnings: $(head -c 300 "$RUN_ERR")"

# A stop signal while a cast file is read stops it: 1,000,000 lines (four
# characters a name), SIGTERM after half a second; SIGKILL 5 s later
# would be needed if it were not seen.
LC_ALL=C awk 'BEGIN {
	s = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥金木水火土日月星山川江河湖海风云雷电春夏秋冬东西南北"
	n = length(s) / 3
	for (i = 0; i < 1000000; i++)
		printf "%s%s%s%s\tcmn-m1\n", substr(s, 3 * int(i / n / n / n) + 1, 3),
		       substr(s, 3 * (int(i / n / n) % n) + 1, 3), substr(s, 3 * (int(i / n) % n) + 1, 3),
		       substr(s, 3 * (i % n) + 1, 3)
}' >huge.txt
start=$(date +%s)
run any term timeout -k 5 0.5 "$TINGSHU" speakers --cast huge.txt book/book.txt
[ "$RC" -eq 137 ] && fail "term: SIGTERM not seen while the cast file was read (killed)"
[ $(($(date +%s) - start)) -le 4 ] || fail "term: $(($(date +%s) - start)) s after SIGTERM"
rm -f huge.txt

# Garbage: 100 lines without a TAB; 20 warnings, then the count of the rest.
for i in $(seq 100); do echo "garbage line $i"; done >garbage.txt
run 0 garbage "$TINGSHU" speakers --cast garbage.txt book/book.txt
[ "$(grep -c 'garbage.txt:[0-9]*: ' "$RUN_ERR")" -eq 20 ] ||
	fail "garbage: not 20 warnings naming the line: $(grep -c . "$RUN_ERR") lines"
err_has garbage "garbage.txt: and 80 more warnings like these"

# A voice that does not exist is an error naming the file and line, for
# `speakers` and a build alike.
for voice in cmn-fX ../x /etc/passwd; do
	printf '# the cast\n张飞\tcmn-m1\n刘备 玄德\t%s\n' "$voice" >bad.txt
	run 2 "voice-${voice//\//_}" "$TINGSHU" speakers --cast bad.txt book/book.txt
	err_has "voice $voice" "bad.txt:3: "
	grep -q "刘备" "$RUN_OUT" && fail "voice $voice: speakers printed with a bad cast"
done
printf '刘备\tcmn-fX\n' >book/cast.txt
run 2 build-voice "$TINGSHU" build -q --loudness off -j1 --dialogue voices -o out book/book.txt
err_has build-voice "book/cast.txt:1: " "cmn-fX"
[ -e out/manifest.json ] && fail "build-voice: a book was built with an unknown voice"

e2e_finish
