#!/bin/bash
# e2e_incremental: a build into a folder that already holds a tingshu book
# redoes only what changed.  One small book (5 short chapters, -j2) goes
# through a series of changes; after each, the chapters that were rebuilt
# are told by the inodes of their files (a rebuilt file is renamed into
# place) and by the -v lines, and every file of the folder, .tingshu
# included, is compared (md5) with a clean build of the same inputs into a
# fresh folder:
#   - a rerun redoes nothing: "N chapters up to date", no file replaced;
#   - a one-sentence edit rebuilds that chapter only, and the short ones
#     spoken after it in one process (chapters 1-4 of this book, by
#     chapterkey.h);
#   - a lexicon.txt entry for a word of one chapter rebuilds that chapter;
#   - a changed setting (--rate, --sentence-pause) rebuilds every chapter;
#   - a damaged chapter (truncated audio, missing .srt or .wav) is rebuilt;
#   - --force rebuilds everything and keeps the user's own files;
#   - a chapter file taken out of the input folder takes its files away;
# and symbolic links planted under the temporary names a running build is
# about to use (.NAME.part-PID) are not followed.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
# Temporary names are .NAME.part-PID@HOST, HOST the machine's name with
# what is not a letter, digit, '.', '-' or '_' made '_' (63 bytes at most).
HOST_TAG=$(hostname | head -c 63 | tr -c 'A-Za-z0-9._\n-' '_' | tr -d '\n')
need_jq

T=$TINGSHU
mkdir -p snap

# --- helpers -------------------------------------------------------------------

# snap DIR NAME: "PATH INODE" (snap/NAME.ino) and "MD5  PATH" (snap/NAME.md5)
# of every file in DIR, .tingshu included, sorted by path.
snap() {
	(cd "$1" && find . -type f -printf '%P %i\n' | LC_ALL=C sort) >"snap/$2.ino"
	(cd "$1" && find . -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 -r md5sum) >"snap/$2.md5"
}

# same_as LABEL NAME REF: snapshot NAME has the same files with the same
# bytes as snapshot REF.
same_as() {
	local label=$1 a=snap/$2.md5 b=snap/$3.md5
	if cmp -s "$a" "$b"; then
		pass "$label: every file identical to $3 ($(wc -l <"$a") files)"
	else
		fail "$label: files differ from $3 (< $2, > $3):
$(diff "$a" "$b" | grep '^[<>]' | head -n 12)"
	fi
}

# rebuilt BEFORE AFTER: the chapters (NNN of NNN-title.*) with a file that
# is new, gone or replaced (inode changed) between two snapshots.
rebuilt() {
	LC_ALL=C join -a1 -a2 -e - -o 0,1.2,2.2 "snap/$1.ino" "snap/$2.ino" |
		awk '$2 != $3 { sub(/^\.tingshu\/chapters\//, "", $1); if ($1 ~ /^[0-9][0-9][0-9]-/) print substr($1, 1, 3) }' |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}

# replaced BEFORE AFTER PATH: PATH has another inode in AFTER than in BEFORE
# (or was missing in BEFORE).
replaced() {
	local a b
	a=$(awk -v p="$3" '$1 == p { print $2 }' "snap/$1.ino")
	b=$(awk -v p="$3" '$1 == p { print $2 }' "snap/$2.ino")
	[ -n "$b" ] && [ "$a" != "$b" ]
}

# built_lines: the chapters the last run's -v lines say it built, as NNN.
built_lines() {
	sed -n 's/^tingshu: \[[0-9]*\/[0-9]*\] \([0-9][0-9][0-9]\)-.*/\1/p' "$RUN_ERR" | sort -u |
		tr '\n' ' ' | sed 's/ $//'
}

# expect_rebuilt LABEL BEFORE AFTER "NNN NNN ...": exactly these chapters
# were rebuilt: their audio was replaced, no file of another chapter was
# touched, and -v named the same chapters.
expect_rebuilt() {
	local label=$1 before=$2 after=$3 want=$4 got n f
	got=$(rebuilt "$before" "$after")
	if [ "$got" = "$want" ]; then
		pass "$label: rebuilt chapters: '${want:-none}'"
	else
		fail "$label: the chapters whose files changed are '${got:-none}', expected '${want:-none}'"
		LC_ALL=C join -a1 -a2 -e - -o 0,1.2,2.2 "snap/$before.ino" "snap/$after.ino" |
			awk '$2 != $3 { print "  | inode " $2 " -> " $3 "  " $1 }' | head -n 20 >&2
	fi
	for n in $want; do
		f=$(awk '{ print $1 }' "snap/$after.ino" | grep -E "^$n-.*\.wav$" | head -n 1)
		if [ -z "$f" ]; then
			fail "$label: chapter $n has no audio file after the build"
		elif ! replaced "$before" "$after" "$f"; then
			fail "$label: the audio of chapter $n ($f) was not replaced"
		fi
	done
	got=$(built_lines)
	[ "$got" = "$want" ] || fail "$label: -v reports building '${got:-nothing}', expected '${want:-nothing}'"
}

# clean NAME [OPTIONS...]: a clean build of book/ (as it is now) into the
# fresh folder ref_NAME, snapshot ref_NAME.
clean() {
	local name=$1
	shift
	rm -rf "ref_$name"
	run 0 "ref_$name" "$T" build -q -j2 "$@" -o "ref_$name" book
	snap "ref_$name" "ref_$name"
}

# build NAME [OPTIONS...]: an incremental build of book/ into out (-v),
# expected to succeed, then a snapshot NAME of out.
build() {
	local name=$1
	shift
	run 0 "$name" "$T" build -v -j2 "$@" -o out book
	snap out "$name"
}

# untouched LABEL BEFORE AFTER: no file was replaced, removed or added
# (the same inodes), the book's files (manifest, playlist, page) included.
untouched() {
	if cmp -s "snap/$2.ino" "snap/$3.ino"; then
		pass "$1: no file replaced (inodes unchanged)"
	else
		fail "$1: files replaced although nothing changed (path inode, < before, > after):
$(diff "snap/$2.ino" "snap/$3.ino" | grep '^[<>]')"
	fi
}

# up_to_date LABEL N: the last run said its N chapters are up to date.
up_to_date() {
	if grep -qxF "tingshu: $2 chapters up to date in out" "$RUN_ERR"; then
		pass "$1: 'tingshu: $2 chapters up to date in out'"
	else
		fail "$1: no line 'tingshu: $2 chapters up to date in out'"
		show_err
	fi
}

complete_is() {
	local got
	got=$(jq -r '.complete' out/manifest.json 2>/dev/null)
	[ "$got" = "$2" ] || fail "$1: manifest.json has \"complete\": $got, expected $2"
}

# --- the book --------------------------------------------------------------------

mkdir book
printf '第一章 出门\n天刚亮，村口的老槐树下站着一个少年。他背着包袱，望着远方的山路。\n' >book/01.txt
printf '第二章 路上\n风从北方吹来，带着沙土的气味。少年裹紧了衣服，继续赶路。\n' >book/02.txt
printf '第三章 进城\n傍晚时分，他终于看见了城墙。城门口人来人往，十分热闹。\n' >book/03.txt
printf '第四章 客栈\n他在一家小客栈住下。掌柜的是个和气的胖子，给他端来一碗热面。\n' >book/04.txt
printf '第五章 夜里\n夜深了，窗外下起了小雨。少年躺在床上，想着明天的事情。\n' >book/05.txt

clean orig
run 0 first "$T" build -q -j2 -o out book || e2e_die "the first build failed"
snap out first
same_as "first build" first ref_orig
n=$(grep -c '^[0-9][0-9][0-9]-.*\.wav ' snap/first.ino)
[ "$n" -eq 5 ] || fail "first build: $n audio files, expected 5"
n=$(grep -c '^\.tingshu/chapters/[0-9][0-9][0-9]-.*\.wav\.rec ' snap/first.ino)
[ "$n" -eq 5 ] || fail "first build: $n chapter records in .tingshu/chapters, expected 5"
complete_is "first build" true

# --- a rerun redoes nothing ------------------------------------------------------

build rerun
up_to_date rerun 5
expect_rebuilt rerun first rerun ""
same_as rerun rerun first
untouched rerun first rerun

# --- a one-sentence edit ---------------------------------------------------------

sed -i 's/城门口人来人往，十分热闹。/城门口挤满了赶集的乡亲。/' book/03.txt
grep -q 赶集 book/03.txt || e2e_die "the edit of book/03.txt did not take"
build edit
# Chapter 4 is spoken after chapter 3 in one process (both are short):
# its sound follows, and it is made again too; 1, 2 and 5 are kept.
expect_rebuilt edit rerun edit "003 004"
clean edit
same_as edit edit ref_edit
complete_is edit true
build edit_rerun
up_to_date edit_rerun 5
untouched edit_rerun edit edit_rerun

# --- a user lexicon entry for a word of one chapter ------------------------------

# 客栈 appears in chapter 4 only (title and text); the reading given is not
# the voice's (ke4 zhan4), so what eSpeak is told changes there only.
[ "$(grep -l 客栈 book/*.txt)" = book/04.txt ] || e2e_die "客栈 is not in exactly one chapter"
for f in book/0*.txt; do
	"$T" pinyin -q "$f" >"snap/pinyin_plain_${f##*/}" 2>/dev/null
done
printf '客栈\tke4 zhan3\n' >book/lexicon.txt
for f in book/0*.txt; do
	"$T" pinyin -q "$f" >"snap/pinyin_lex_${f##*/}" 2>/dev/null
	if [ "$f" = book/04.txt ]; then
		cmp -s "snap/pinyin_plain_${f##*/}" "snap/pinyin_lex_${f##*/}" &&
			e2e_die "the lexicon entry does not change the pinyin of $f"
	else
		cmp -s "snap/pinyin_plain_${f##*/}" "snap/pinyin_lex_${f##*/}" ||
			e2e_die "the lexicon entry changes the pinyin of $f"
	fi
done
build lexicon
expect_rebuilt lexicon edit_rerun lexicon "004"
clean lexicon
same_as lexicon lexicon ref_lexicon
a=$(grep ' 004-.*\.wav$' snap/edit_rerun.md5 | cut -d' ' -f1)
b=$(grep ' 004-.*\.wav$' snap/lexicon.md5 | cut -d' ' -f1)
[ -n "$a" ] && [ "$a" = "$b" ] && fail "lexicon: the audio of chapter 4 is the same as without the entry"

# --- changed settings --------------------------------------------------------------

build rate --rate 1.2
expect_rebuilt "--rate 1.2" lexicon rate "001 002 003 004 005"
clean rate --rate 1.2
same_as "--rate 1.2" rate ref_rate
[ "$(jq -r '.settings.rate_factor' out/manifest.json 2>/dev/null)" = 1.2 ] ||
	fail "--rate 1.2: manifest.json says rate_factor $(jq -r '.settings.rate_factor' out/manifest.json 2>/dev/null)"
build rate_rerun --rate 1.2
up_to_date "--rate 1.2 again" 5
expect_rebuilt "--rate 1.2 again" rate rate_rerun ""
untouched "--rate 1.2 again" rate rate_rerun

build pause --sentence-pause 600
expect_rebuilt "--sentence-pause 600" rate_rerun pause "001 002 003 004 005"
clean pause --sentence-pause 600
same_as "--sentence-pause 600" pause ref_pause

build defaults
expect_rebuilt "back to the defaults" pause defaults "001 002 003 004 005"
same_as "back to the defaults" defaults ref_lexicon

# --- damaged chapters ----------------------------------------------------------------

wav2=$(cd out && ls 002-*.wav)
size=$(stat -c %s "out/$wav2")
truncate -s $((size / 2)) "out/$wav2"
build truncated
expect_rebuilt "truncated $wav2" defaults truncated "002"
same_as "truncated $wav2" truncated ref_lexicon

srt4=$(cd out && ls 004-*.srt)
rm -f "out/$srt4"
snap out srt_gone
build srt
expect_rebuilt "deleted $srt4" srt_gone srt "004"
[ -f "out/$srt4" ] || fail "deleted $srt4: not made again"
same_as "deleted $srt4" srt ref_lexicon

wav1=$(cd out && ls 001-*.wav)
rm -f "out/$wav1"
snap out wav_gone
build wav
expect_rebuilt "deleted $wav1" wav_gone wav "001"
same_as "deleted $wav1" wav ref_lexicon
complete_is "deleted $wav1" true

# --- --force, and the user's own files ---------------------------------------------

echo "my notes on this book" >out/notes.txt
snap out before_force
grep ' notes.txt$' snap/before_force.md5 >snap/notes.md5

# with_notes LABEL NAME REF: snapshot NAME is snapshot REF plus the user's
# notes.txt, unchanged.
with_notes() {
	local label=$1
	grep -qxF "$(cat snap/notes.md5)" "snap/$2.md5" || fail "$label: notes.txt, a file of the user, was removed or changed"
	grep -v ' notes.txt$' "snap/$2.md5" >"snap/$2_nonotes.md5"
	same_as "$label (notes.txt aside)" "$2_nonotes" "$3"
}

build force --force
expect_rebuilt "--force" before_force force "001 002 003 004 005"
# Every file of every chapter (audio, timing, record) is new.
while read -r p _; do
	case $p in
	[0-9][0-9][0-9]-* | .tingshu/chapters/[0-9][0-9][0-9]-*)
		replaced before_force force "$p" || fail "--force: $p was not replaced"
		;;
	esac
done <snap/before_force.ino
with_notes "--force" force ref_lexicon

# --- a chapter taken out of the input folder -----------------------------------------

# The last one first: the others keep their names.
gone5=$(grep -E '^(\.tingshu/chapters/)?005-' snap/force.ino | cut -d' ' -f1)
[ "$(wc -l <<<"$gone5")" -eq 5 ] || fail "setup: chapter 5 has $(wc -l <<<"$gone5") files, expected 5 (wav srt vtt js rec)"
mv book/05.txt removed05.txt
build removed
for p in $gone5; do
	[ -e "out/$p" ] && fail "chapter 5 removed: out/$p is still there"
done
clean removed
# out = the clean build of the four chapters + notes.txt, nothing more.
with_notes "chapter 5 removed" removed ref_removed
got=$(jq -r '[.chapters[].audio] | join(" ")' out/manifest.json 2>/dev/null)
want=$(cd ref_removed && printf '%s\n' [0-9]*.wav | tr '\n' ' ' | sed 's/ $//')
[ "$got" = "$want" ] || fail "chapter 5 removed: manifest lists '$got', expected '$want'"
[ "$(grep -c '\.wav$' out/playlist.m3u)" -eq 4 ] || fail "chapter 5 removed: playlist.m3u does not list 4 chapters"
grep -q '005-' out/playlist.m3u out/manifest.json out/index.html && fail "chapter 5 removed: still named in the book's files"
complete_is "chapter 5 removed" true

# One in the middle: the later chapters move up (new names), and the
# files under the old names go.
mv book/02.txt removed02.txt
build removed_mid
clean removed_mid
with_notes "chapter 2 removed" removed_mid ref_removed_mid
complete_is "chapter 2 removed" true

# Both back: the book of the lexicon step again.
mv removed02.txt book/02.txt
mv removed05.txt book/05.txt
build restored
with_notes "chapters 2 and 5 back" restored ref_lexicon

no_temp_files out "incremental builds"
if [ -n "$(find out -type l)" ]; then fail "symbolic links in out: $(find out -type l)"; fi

# --- planted links ---------------------------------------------------------------------

# A build writes ".NAME.part-PID" files in the output folder (PID: the
# build's parent process, known only once it has started) and creates them
# with O_EXCL|O_NOFOLLOW: a link planted under such a name must make that
# file fail, never write through the link.  Three chapters long enough
# (about a second each with -j1) that the links are in place before the
# second and third chapters are written.
mkdir pbook
{ echo '第一章 围城'; head -n 12 "$SRC"/seeds/000_*.txt; } >pbook/01.txt
{ echo '第二章 突围'; sed -n '13,20p' "$SRC"/seeds/000_*.txt; } >pbook/02.txt
{ echo '第三章 回营'; head -n 6 "$SRC"/seeds/004_*.txt; } >pbook/03.txt
printf 'do not touch\n' >target.txt
sum_target=$(md5sum <target.txt)
run 0 pref "$T" build -q -j1 -o pref pbook
names=()
for f in pref/*.wav; do
	f=${f##*/}
	names+=("${f%.wav}")
done
[ "${#names[@]}" -eq 3 ] || e2e_die "planted links: the reference build made ${#names[@]} chapters, expected 3"

# plant DIR PID SUFFIXES NAME...: links under the temporary names
# ".NAME SUFFIX.part-PID" of the files of chapters NAME, for each of
# SUFFIXES (.wav .wav.raw .srt .vtt .rec; manifest; pages: playlist.m3u
# and index.html), to target.txt; those of .vtt and of the page to a file that
# does not exist (a dangling link must not make it).
plant() {
	local dir=$1 pid=$2 sufs=$3 n x
	shift 3
	for x in $sufs; do
		case $x in
		manifest) ln -s "$SCRATCH/target.txt" "$dir/.manifest.json.part-$pid@$HOST_TAG" ;;
		pages)
			ln -s "$SCRATCH/target.txt" "$dir/.playlist.m3u.part-$pid@$HOST_TAG"
			ln -s "$SCRATCH/absent-index.html" "$dir/.index.html.part-$pid@$HOST_TAG"
			;;
		.rec)
			if [ -d "$dir/.tingshu/chapters" ]; then
				for n in "$@"; do
					ln -s "$SCRATCH/target.txt" "$dir/.tingshu/chapters/.$n.wav.rec.part-$pid@$HOST_TAG"
				done
			fi
			;;
		.vtt) for n in "$@"; do ln -s "$SCRATCH/absent-$n.vtt" "$dir/.$n.vtt.part-$pid@$HOST_TAG"; done ;;
		*) for n in "$@"; do ln -s "$SCRATCH/target.txt" "$dir/.$n$x.part-$pid@$HOST_TAG"; done ;;
		esac
	done 2>/dev/null # a name the build has already made: nothing to plant there
	return 0
}

# planted LABEL DIR SUFFIXES [OPTIONS...]: start a build of pbook into DIR,
# plant links (plant) for its second and third chapters at once, wait for
# it, check that nothing was written through them.
planted() {
	local label=$1 dir=$2 sufs=$3 pid rc l
	shift 3
	"$T" build -j1 "$@" -o "$dir" pbook >"logs/$label.out" 2>"logs/$label.err" &
	pid=$!
	plant "$dir" "$pid" "$sufs" "${names[1]}" "${names[2]}"
	wait "$pid"
	rc=$?
	RUN_ERR=logs/$label.err
	echo "$label: build exit code $rc"
	[ "$rc" -le 1 ] || fail "$label: build exit code $rc (a crash?), expected 0 or 1"
	[ "$(md5sum <target.txt)" = "$sum_target" ] || fail "$label: the file a planted link points to was written"
	[ -L target.txt ] || [ ! -f target.txt ] && fail "$label: target.txt is no longer a regular file"
	ls "$SCRATCH"/absent-* >/dev/null 2>&1 && fail "$label: a planted dangling link made its target: $(ls "$SCRATCH"/absent-*)"
	for l in "$dir"/* "$dir"/.tingshu/chapters/*; do
		[ -L "$l" ] && fail "$label: $l, under a final name, is a symbolic link"
	done
	if grep -q 'File exists' "$RUN_ERR"; then
		pass "$label: the build met $(grep -c 'File exists' "$RUN_ERR") planted link(s) and wrote nothing through them"
		sed 's/^/  | /' "$RUN_ERR"
	else
		echo "note: $label: the build did not meet a planted link: $(head -c 300 "$RUN_ERR")"
	fi
}

all_sufs=".wav .wav.raw .srt .vtt .rec manifest pages"
mkdir pout
planted plant_fresh pout "$all_sufs"
# The next build (another PID) finishes the book.
run 0 plant_fresh_after "$T" build -q -j1 -o pout pbook
snap pout pout_fresh
snap pref pref
same_as "planted links, fresh folder, then a plain build" pout_fresh pref

# Into a finished book with --force: the records are there too.
planted plant_force pout "$all_sufs" --force
run 0 plant_force_after "$T" build -q -j1 -o pout pbook
snap pout pout_force
same_as "planted links, --force, then a plain build" pout_force pref
# A link under the first of a chapter's temporary names stops it before
# the others are made (and one under the manifest's, the whole build):
# each kind of name alone, so that every one is met.
for x in .wav.raw .srt .vtt .wav .rec manifest pages; do
	planted "plant_only$x" pout "$x" --force
	run 0 "plant_only${x}_after" "$T" build -q -j1 -o pout pbook
	snap pout "pout_only$x"
	same_as "planted links ($x only), --force, then a plain build" "pout_only$x" pref
done

# A chapter that fails keeps its files of the last build, marked
# "outdated", and the book is not complete; the next build finishes it.
# (The manifest's own temporary name is left free this time.)
sed -i '2s/^/这一句是新加的。/' pbook/02.txt
old2=$(md5sum <"pout/${names[1]}.wav")
"$T" build -j1 --force -o pout pbook >logs/plant_outdated.out 2>logs/plant_outdated.err &
pid=$!
for s in .wav .wav.raw .srt; do ln -s "$SCRATCH/target.txt" "pout/.${names[1]}$s.part-$pid@$HOST_TAG" 2>/dev/null; done
wait "$pid"
rc=$?
echo "plant_outdated: build exit code $rc"
[ "$rc" -le 1 ] || fail "plant_outdated: build exit code $rc (a crash?), expected 0 or 1"
[ "$(md5sum <target.txt)" = "$sum_target" ] || fail "plant_outdated: the file a planted link points to was written"
if [ "$rc" -eq 1 ]; then
	c=$(jq -r '.complete' pout/manifest.json 2>/dev/null)
	[ "$c" = false ] || fail "plant_outdated: chapter 2 failed, but manifest.json has \"complete\": $c"
	o2=$(jq -r --arg a "${names[1]}.wav" '.chapters[] | select(.audio == $a) | .outdated' pout/manifest.json 2>/dev/null)
	[ "$o2" = true ] || fail "plant_outdated: chapter 2 failed, but its entry has \"outdated\": $o2"
	o1=$(jq -r --arg a "${names[0]}.wav" '.chapters[] | select(.audio == $a) | .outdated' pout/manifest.json 2>/dev/null)
	[ "$o1" = true ] && fail "plant_outdated: chapter 1 was built, but its entry is \"outdated\""
	[ "$(md5sum <"pout/${names[1]}.wav" 2>/dev/null)" = "$old2" ] ||
		fail "plant_outdated: the audio of the failed chapter 2 is not the one of the last build"
	pass "plant_outdated: manifest \"complete\": $c, chapter 2 \"outdated\": $o2, its audio of the last build kept"
else
	echo "note: plant_outdated: the build did not meet the links (exit code $rc)"
	head -n 5 logs/plant_outdated.err
fi
run 0 plant_outdated_after "$T" build -v -j1 -o pout pbook
got=$(built_lines)
# Chapter 3, short, is spoken after chapter 2 (chapterkey.h), whose text
# the edit above changed: made again with it.
[ "$got" = "002 003" ] || fail "plant_outdated_after: -v reports building '${got:-nothing}', expected '002 003'"
snap pout pout_outdated
rm -rf pref
run 0 pref2 "$T" build -q -j1 -o pref pbook
snap pref pref2
same_as "planted links, a failed chapter, then a plain build" pout_outdated pref2
[ "$(jq -r '.complete' pout/manifest.json 2>/dev/null)" = true ] || fail "plant_outdated_after: the book is not complete"
[ "$(jq '[.chapters[] | select(.outdated == true)] | length' pout/manifest.json 2>/dev/null)" = 0 ] ||
	fail "plant_outdated_after: chapters still \"outdated\""
if [ "$(md5sum <target.txt)" = "$sum_target" ]; then
	pass "planted links: target.txt untouched"
else
	fail "planted links: target.txt was written"
fi
ls "$SCRATCH"/absent-* >/dev/null 2>&1 && fail "planted links: a dangling link made its target"

e2e_finish
