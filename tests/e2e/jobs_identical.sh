#!/bin/bash
# e2e_jobs_identical: the same input built with -j1, -j2 and -j3 gives the
# same files, byte for byte (the design promises output independent of -j);
# a chapter that begins its group sounds the same whatever was built before
# it, and a short one spoken after another (chapterkey.h) is made the same
# when it is built alone (--chapters).
. "$(dirname "$0")/lib.sh"
e2e_init "$@"

cp "$SRC/tests/e2e/data/short_book.txt" book.txt || e2e_die "cannot copy the test book"
for j in 1 2 3; do
	run 0 "j$j" "$TINGSHU" build -q -j"$j" -o "out$j" "$SRC/seeds" book.txt
done

# Same file names.
(cd out1 && find . -type f -printf '%P\n' | sort) >list1
for j in 2 3; do
	(cd "out$j" 2>/dev/null && find . -type f -printf '%P\n' | sort) >"list$j"
	cmp -s list1 "list$j" || fail "-j1 and -j$j made different files: $(diff list1 "list$j" | tr '\n' ' ')"
done
n=$(grep -c '\.wav$' list1)
[ "$n" -eq 6 ] || fail "-j1 made $n audio files, expected 6 (2 seeds + 4 chapters of the book)"

# Same bytes.
frames() { wav "$1" frames; }
while read -r f; do
	for j in 2 3; do
		[ -f "out$j/$f" ] || continue
		cmp -s "out1/$f" "out$j/$f" && continue
		case "$f" in
		*.wav) fail "$f differs between -j1 and -j$j ($(frames "out1/$f") vs $(frames "out$j/$f") frames)" ;;
		*) fail "$f differs between -j1 and -j$j: $(diff "out1/$f" "out$j/$f" | grep '^[<>]' | head -n 4 | tr -s ' ' | tr '\n' ' ')" ;;
		esac
	done
done <list1

# A chapter built alone gives the same audio as in the whole build (with
# -j1, each chapter after the first is made after others in one process).
# The audio, not the bytes: the tags differ (album, track).  第三章 is the
# fifth chapter (after the two seeds): the first of a group of four, it is
# spoken in a process of its own.
sed -n '/^第三章/,/^第四章/p' book.txt | sed '$d' >ch3.txt
run 0 alone "$TINGSHU" build -q -j1 -o alone ch3.txt
a_alone=$(find alone -name '*.wav' | head -n 1)
a_book=$(find out1 -name '*第三章*.wav' | head -n 1)
if [ -n "$a_alone" ] && [ -n "$a_book" ]; then
	[ "$(wav "$a_alone" pcm_hash)" = "$(wav "$a_book" pcm_hash)" ] ||
		fail "第三章 built alone ($(frames "$a_alone") frames) differs from 第三章 in the -j1 build ($(frames "$a_book") frames)"
else
	fail "no audio for 第三章 alone ('$a_alone') or in the book ('$a_book')"
fi

# 第二章, short after a short 第一章, is spoken after it in one process
# (chapterkey.h): made again alone (--chapters), it is the same, byte for
# byte, as in every whole build; and the build says it made that one only.
cp -a out1 again
a_book=$(cd out1 && find . -name '*第二章*' -printf '%P\n' | sort)
[ -n "$a_book" ] || fail "no files for 第二章 in the -j1 build"
(cd again && rm -f $a_book)
run 0 again "$TINGSHU" build -j2 --chapters 4 -o again "$SRC/seeds" book.txt
grep -q 'built 1 of 6 chapters' "$RUN_ERR" || fail "--chapters 4: expected 1 of 6 chapters built: $(cat "$RUN_ERR")"
for f in $a_book; do
	cmp -s "out1/$f" "again/$f" || fail "第二章 made again alone: $f differs from the -j1 build's"
done

no_temp_files out1 "-j1"
no_temp_files out2 "-j2"
no_temp_files out3 "-j3"
no_temp_files again "--chapters"
e2e_finish
