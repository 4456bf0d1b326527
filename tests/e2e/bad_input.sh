#!/bin/bash
# e2e_bad_*: bad input and bad settings.  One case per test:
#   bash bad_input.sh TINGSHU SRC WAVINFO SCRATCH CASE
# Every case checks the exit code, a message on stderr that names the
# culprit, that nothing appears in the output folder under a final name for
# what was bad, and that no temporary files remain.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
CASE=${E2E_ARGS[0]:-}
[ -n "$CASE" ] || e2e_die "no case given"

NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# Can we run a program as an unprivileged user (needed as root, where file
# permissions do not apply)?  The scratch folder must be reachable by it.
chmod a+rx "$SCRATCH"
umask 022
can_drop_root() {
	[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 &&
		"${NOBODY[@]}" test -x "$TINGSHU" 2>/dev/null &&
		"${NOBODY[@]}" test -x "$SCRATCH" 2>/dev/null
}

# no_audio DIR LABEL: no audio file (and no temporary file) in DIR.
no_audio() {
	local dir=$1 label=$2 found
	[ -d "$dir" ] || return 0
	found=$(find "$dir" -mindepth 1 \( -name '*.wav' -o -name '*.flac' -o -name '*.mp3' \
		-o -name '*.opus' -o -name '*.ogg' \) -printf '%f ')
	[ -z "$found" ] || fail "$label: audio files in $dir: $found"
	no_temp_files "$dir" "$label"
}

good_chapter() { write_chapter "$1" 2; }

# A temporary folder of our own, to see what tingshu leaves in it.
use_tmpdir() {
	export TMPDIR=$SCRATCH/tmp
	mkdir -p "$TMPDIR"
}

# tmp_empty LABEL: nothing left in $TMPDIR.
tmp_empty() {
	local left
	left=$(find "$TMPDIR" -mindepth 1 -printf '%f ')
	[ -z "$left" ] || fail "$1: left in \$TMPDIR: $left"
}

# catches PID SIG: the process has a handler for the signal (SigCgt).
catches() {
	local mask n
	mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
	[ -n "$mask" ] || return 1
	n=$(kill -l "$2")
	(((16#$mask >> (n - 1)) & 1))
}

# big_gbk FILE: some 25 MB of GB18030 text (the seeds, many times), which
# takes a good part of a second to decode.
big_gbk() {
	local i
	for ((i = 0; i < 60; i++)); do cat "$SRC"/seeds/*.txt; done | iconv -f UTF-8 -t GB18030 >part.gbk
	for ((i = 0; i < 40; i++)); do cat part.gbk; done >"$1"
	rm part.gbk
}

# This machine's name as temporary names hold it (base/file.c).
HOST_TAG=$(hostname | head -c 63 | tr -c 'A-Za-z0-9._\n-' '_' | tr -d '\n')

case "$CASE" in
missing)
	run 1 build "$TINGSHU" build -q -o out nosuch-chapter.txt
	err_has missing nosuch-chapter.txt
	no_audio out missing
	[ -e out/manifest.json ] && fail "missing: a manifest was written for nothing"
	;;

empty_dir)
	mkdir chapters
	echo 'not a chapter' >chapters/notes.md
	run 1 build "$TINGSHU" build -q -o out chapters
	err_has empty_dir chapters
	no_audio out empty_dir
	[ -e out/manifest.json ] && fail "empty_dir: a manifest was written for nothing"
	;;

unreadable)
	echo '第一章 秘密' >secret.txt
	good_chapter body.txt
	cat body.txt >>secret.txt
	chmod 000 secret.txt
	if [ "$(id -u)" -eq 0 ]; then
		can_drop_root || e2e_skip "running as root without a working setpriv: cannot make an unreadable file"
		mkdir out && chmod 777 out
		"${NOBODY[@]}" test -r secret.txt && e2e_skip "user 65534 can read a chmod 000 file"
		run 1 build "${NOBODY[@]}" "$TINGSHU" build -q -o out/book secret.txt
	else
		[ -r secret.txt ] && e2e_skip "a chmod 000 file is still readable here"
		run 1 build "$TINGSHU" build -q -o out/book secret.txt
	fi
	err_has unreadable secret.txt
	grep -qi 'permission' "$RUN_ERR" || fail "unreadable: the message does not say why (permission)"
	no_audio out/book unreadable
	;;

invalid_utf8)
	# Line 3 is GBK: 你好世界 = C4E3 BAC3 CAC0 BDE7, the rest UTF-8.  A
	# GBK file is decoded, but this mix is in no one encoding: refused, at
	# the first byte that is not UTF-8.
	{
		printf '第一章 乱码\n'
		printf '这一行是正常的文字。\n'
		printf '\xc4\xe3\xba\xc3\xca\xc0\xbd\xe7\xa1\xa3\n'
		printf '这一行又是正常的。\n'
	} >gbk.txt
	run 1 build "$TINGSHU" build -q -o out gbk.txt
	err_has invalid_utf8 gbk.txt
	grep -qE 'gbk\.txt:3([^0-9]|$)|line 3([^0-9]|$)' "$RUN_ERR" ||
		{ fail "invalid_utf8: the message does not give the line (3)"; show_err; }
	grep -qi 'utf-\?8' "$RUN_ERR" || fail "invalid_utf8: the message does not say UTF-8"
	no_audio out invalid_utf8
	# All GBK (第一章, 你好世界。): read as such, but refused when said to
	# be UTF-8.
	printf '\xb5\xda\xd2\xbb\xd5\xc2\n\xc4\xe3\xba\xc3\xca\xc0\xbd\xe7\xa1\xa3\n' >all-gbk.txt
	run 0 detected "$TINGSHU" text all-gbk.txt
	grep -q '你好世界' "$RUN_OUT" || fail "invalid_utf8: a GBK file was not read as GBK: $(head -c 200 "$RUN_OUT")"
	run 1 forced "$TINGSHU" build -q --encoding UTF-8 -o out all-gbk.txt
	err_has invalid_utf8 "all-gbk.txt:1:" "invalid UTF-8 at byte 0" "--encoding"
	no_audio out invalid_utf8
	;;

binary)
	{
		printf '第一章 二进制\n你好'
		printf '\0\0\0\x01\x02\x03\xff\xfe\0'
		printf '世界。\n'
	} >data.txt
	run 1 build "$TINGSHU" build -q -o out data.txt
	err_has binary data.txt
	no_audio out binary
	;;

empty_chapter)
	mkdir chapters
	good_chapter chapters/01.txt
	: >chapters/02.txt
	run 0 build "$TINGSHU" build -j2 -o out chapters
	err_has empty_chapter 02.txt
	grep -qi 'warn' "$RUN_ERR" || { fail "empty_chapter: no warning on stderr"; show_err; }
	need_jq
	jq -e '.chapters | length == 1' out/manifest.json >/dev/null 2>&1 ||
		fail "empty_chapter: manifest should list 1 chapter: $(jq -c '[.chapters[].source]' out/manifest.json 2>&1)"
	jq -e '.chapters[0].source | endswith("01.txt")' out/manifest.json >/dev/null 2>&1 ||
		fail "empty_chapter: the chapter built is not 01.txt"
	n=$(find out -name '*.wav' | wc -l)
	[ "$n" -eq 1 ] || fail "empty_chapter: $n audio files, expected 1"
	[ -n "$(find out -name '*-02.*')" ] && fail "empty_chapter: a file was made for the empty chapter"
	no_temp_files out empty_chapter
	;;

unwritable_output)
	good_chapter ch.txt
	echo 'I am a file' >plain.txt
	run any under_file "$TINGSHU" build -q -o plain.txt/out ch.txt
	[ "$RC" -ne 0 ] || fail "unwritable_output: -o under a regular file exited 0"
	[ "$RC" -eq 1 ] || [ "$RC" -eq 2 ] || fail "unwritable_output: exit code $RC (expected 1 or 2)"
	err_has unwritable_output plain.txt/out
	[ "$(cat plain.txt)" = 'I am a file' ] || fail "unwritable_output: plain.txt was changed"
	no_temp_files . unwritable_output
	# A read-only folder (as root only for an unprivileged user).
	mkdir ro && chmod 555 ro
	if [ "$(id -u)" -eq 0 ]; then
		if can_drop_root; then
			run any readonly "${NOBODY[@]}" "$TINGSHU" build -q -o ro/out ch.txt
		else
			echo "note: running as root without setpriv: read-only folder case not checked"
			RC=skip
		fi
	else
		run any readonly "$TINGSHU" build -q -o ro/out ch.txt
	fi
	if [ "$RC" != skip ]; then
		[ "$RC" -ne 0 ] || fail "unwritable_output: a read-only parent folder exited 0"
		[ "$RC" -eq 1 ] || [ "$RC" -eq 2 ] || fail "unwritable_output: exit code $RC (expected 1 or 2)"
		err_has readonly ro/out
		[ -z "$(ls -A ro)" ] || fail "unwritable_output: ro/ is not empty: $(ls -A ro)"
	fi
	# The folder itself read-only.
	mkdir ro2 && chmod 555 ro2
	if [ "$RC" != skip ]; then
		if [ "$(id -u)" -eq 0 ]; then
			run any readonly2 "${NOBODY[@]}" "$TINGSHU" build -q -o ro2 ch.txt
		else
			run any readonly2 "$TINGSHU" build -q -o ro2 ch.txt
		fi
		[ "$RC" -ne 0 ] || fail "unwritable_output: a read-only output folder exited 0"
		err_has readonly2 ro2
		[ -z "$(ls -A ro2)" ] || fail "unwritable_output: ro2/ is not empty: $(ls -A ro2)"
	fi
	chmod 755 ro ro2
	;;

unknown_voice)
	good_chapter ch.txt
	run 2 build "$TINGSHU" build -q --voice nosuch -o out ch.txt
	err_has unknown_voice nosuch "tingshu voices"
	no_audio out unknown_voice
	[ -e out/manifest.json ] && fail "unknown_voice: a manifest was written"
	;;

unknown_option)
	good_chapter ch.txt
	run 2 build "$TINGSHU" build -q --frobnicate -o out ch.txt
	err_has unknown_option frobnicate
	[ -s "$RUN_OUT" ] && fail "unknown_option: printed to stdout: $(head -c 200 "$RUN_OUT")"
	no_audio out unknown_option
	[ -e out ] && fail "unknown_option: the output folder was made"
	run 2 cmd "$TINGSHU" frobnicate
	err_has unknown_command frobnicate
	;;

bad_chapter_in_dir)
	mkdir chapters
	good_chapter chapters/01.txt
	printf '坏的一章\n\xc4\xe3\xba\xc3\xca\xc0\xbd\xe7\n' >chapters/02.txt
	good_chapter chapters/03.txt
	run 1 build "$TINGSHU" build -q -j2 -o out chapters
	err_has bad_chapter_in_dir 02.txt
	need_jq
	jq -e . out/manifest.json >/dev/null 2>&1 || e2e_die "bad_chapter_in_dir: no valid manifest for the good chapters"
	mapfile -t src < <(jq -r '.chapters[].source' out/manifest.json)
	[ "${#src[@]}" -eq 2 ] || fail "bad_chapter_in_dir: manifest lists ${#src[@]} chapters, expected 2: ${src[*]}"
	case "${src[0]:-}" in *01.txt) ;; *) fail "bad_chapter_in_dir: first chapter is '${src[0]:-}', expected 01.txt" ;; esac
	case "${src[1]:-}" in *03.txt) ;; *) fail "bad_chapter_in_dir: second chapter is '${src[1]:-}', expected 03.txt" ;; esac
	mapfile -t audio < <(jq -r '.chapters[].audio' out/manifest.json)
	for a in "${audio[@]}"; do
		[ -f "out/$a" ] || { fail "bad_chapter_in_dir: $a missing"; continue; }
		check_wav "out/$a" "" "bad_chapter_in_dir $a"
	done
	n=$(find out -name '*.wav' | wc -l)
	[ "$n" -eq 2 ] || fail "bad_chapter_in_dir: $n audio files, expected 2"
	[ -n "$(find out -name '*-02.*')" ] && fail "bad_chapter_in_dir: a file was made for the bad chapter 02.txt"
	grep -q '02' <(grep -v '^#' out/playlist.m3u | grep -v -- '-0[13]\.') &&
		fail "bad_chapter_in_dir: the playlist lists the bad chapter"
	no_temp_files out bad_chapter_in_dir
	;;

existing_output)
	# A folder that holds a tingshu book is built into again: what changed
	# is made again, what the book lost goes (only files tingshu recorded).
	need_jq
	mkdir chapters
	good_chapter chapters/01.txt
	good_chapter chapters/02.txt
	run 0 first "$TINGSHU" build -q -o out chapters || e2e_finish
	cp -a out before
	echo "mine" >out/notes.txt
	rm chapters/02.txt
	write_chapter chapters/01.txt 1
	run 0 again "$TINGSHU" build -q -o out chapters
	jq -e '(.chapters | length) == 1 and .complete' out/manifest.json >/dev/null ||
		fail "existing_output: the manifest lists $(jq '.chapters | length' out/manifest.json) chapters, expected 1, complete"
	cmp -s before/manifest.json out/manifest.json && fail "existing_output: the manifest was not replaced"
	mapfile -t audio < <(jq -r '.chapters[].audio' out/manifest.json)
	cmp -s "before/${audio[0]:-none}" "out/${audio[0]:-none}" &&
		fail "existing_output: the edited chapter was not built again"
	for f in out/*.wav; do
		b=$(basename "$f")
		[ "$b" = "${audio[0]:-}" ] || fail "existing_output: $b of the old book is still in out/"
	done
	ls out/002-* >/dev/null 2>&1 && fail "existing_output: files of the removed chapter are left: $(ls out/002-*)"
	[ "$(cat out/notes.txt 2>/dev/null)" = mine ] || fail "existing_output: a file tingshu did not make was touched"
	[ -f "out/${audio[0]:-none}" ] && check_wav "out/${audio[0]}" "" "existing_output"
	no_temp_files out existing_output
	;;

many_empty_headings)
	# A book of 3,000 empty chapters warns of the first 20 and counts the
	# rest in one line, instead of 3,000 lines.
	{ echo "书名"; for i in $(seq 1 3000); do echo "第${i}章 空"; done; echo "第3001章 有"; echo "今天下雨。"; } >heads.txt
	run 0 build "$TINGSHU" build --dry-run -o out heads.txt
	n=$(grep -c 'has no text' "$RUN_ERR")
	[ "$n" = 20 ] || fail "many_empty_headings: $n warnings of empty chapters, expected 20"
	err_has many_empty_headings "heads.txt: and 2980 more warnings like these"
	;;

foreign_output)
	# A folder with a manifest.json tingshu did not write is someone
	# else's: refused, with --force too, and nothing in it touched (an old
	# --force deleted what a foreign playlist listed).
	good_chapter ch.txt
	mkdir out
	echo '{"player": "mine"}' >out/manifest.json
	printf '#EXTM3U\nsong.mp3\nphoto.jpg\n' >out/playlist.m3u
	for f in song.mp3 photo.jpg song.srt song.vtt; do echo "$f" >"out/$f"; done
	cp -a out before
	run 1 plain "$TINGSHU" build -q -o out ch.txt
	err_has foreign_output "not a tingshu audiobook" "-o"
	run 1 force "$TINGSHU" build -q --force -o out ch.txt
	err_has foreign_output "not a tingshu audiobook"
	diff -r before out >/dev/null || fail "foreign_output: the folder changed: $(diff -rq before out | tr '\n' ' ')"
	;;

lexicon_not_text)
	# A --lexicon that is not a regular file (a device of endless NUL
	# bytes) is refused when opened, before anything is read.
	good_chapter ch.txt
	for cmd in text pinyin; do
		run 2 "$cmd" timeout 10 "$TINGSHU" "$cmd" --lexicon /dev/zero ch.txt
		err_has "lexicon_not_text $cmd" "--lexicon /dev/zero: not a regular file (it is a device)"
		[ -s "$RUN_OUT" ] && fail "lexicon_not_text: $cmd printed to stdout"
	done
	run 2 build timeout 10 "$TINGSHU" build -q --lexicon /dev/zero -o out ch.txt
	err_has "lexicon_not_text build" "/dev/zero: not a regular file"
	[ -e out ] && fail "lexicon_not_text: the output folder was made"
	# A file that is not text (no newline) fails at its first line, at
	# once and in bounded memory: a line reader without a limit would grow
	# until memory ran out.
	head -c 100000 /dev/zero >zeros.bin
	run 2 zeros timeout 10 "$TINGSHU" text --lexicon zeros.bin ch.txt
	err_has "lexicon_not_text zeros" "--lexicon zeros.bin:1: line too long" "4096 bytes"
	# The same for a lexicon.txt beside the book with a line too long.
	mkdir book
	good_chapter book/ch.txt
	{
		printf '银行\tyin2 xing2\n'
		head -c 5000 /dev/zero | tr '\0' x
		printf '\n'
	} >book/lexicon.txt
	run 2 beside timeout 10 "$TINGSHU" pinyin book/ch.txt
	err_has "lexicon_not_text beside" "book/lexicon.txt:2: line too long"
	;;

lexicon_fifo)
	# A named pipe as a lexicon, given or beside the book, is refused
	# at once: opening it used to wait for a writer for ever.
	good_chapter ch.txt
	mkfifo pipe.txt
	for cmd in text pinyin; do
		run 2 "$cmd" timeout 10 "$TINGSHU" "$cmd" --lexicon pipe.txt ch.txt
		err_has "lexicon_fifo $cmd" "--lexicon pipe.txt: not a regular file (it is a named pipe)"
	done
	run 2 build timeout 10 "$TINGSHU" build -q --lexicon pipe.txt -o out ch.txt
	err_has "lexicon_fifo build" "pipe.txt: not a regular file"
	[ -e out ] && fail "lexicon_fifo: the output folder was made"
	mkdir book
	good_chapter book/ch.txt
	mkfifo book/lexicon.txt
	run 2 beside timeout 10 "$TINGSHU" build -q -o out book
	err_has "lexicon_fifo beside" "book/lexicon.txt: not a regular file (it is a named pipe)"
	[ -e out ] && fail "lexicon_fifo: the output folder was made"
	;;

lexicon_too_big)
	# A data file has at most 64 MB: an 80 MB lexicon.txt without a
	# newline (sparse: it takes no disk) is refused by its size, at once.
	mkdir book
	good_chapter book/ch.txt
	truncate -s 80M book/lexicon.txt
	SECONDS=0
	run 2 beside timeout 10 "$TINGSHU" build -q -o out book
	err_has "lexicon_too_big beside" \
		"lexicon book/lexicon.txt: too big for a data file (83886080 bytes; the limit is 64 MB)"
	[ -e out ] && fail "lexicon_too_big: the output folder was made"
	good_chapter ch.txt
	truncate -s 80M big.txt
	run 2 given timeout 10 "$TINGSHU" pinyin --lexicon big.txt ch.txt
	err_has "lexicon_too_big given" "--lexicon big.txt: too big for a data file"
	[ "$SECONDS" -le 5 ] || fail "lexicon_too_big: took $SECONDS s"
	;;

voice_not_file)
	# A voice preset given as a path must be a regular file: a device is
	# not read (it used to be, to the line limit), a folder not opened.
	good_chapter ch.txt
	mkdir presets
	run 2 device timeout 10 "$TINGSHU" text --voice /dev/zero ch.txt
	err_has "voice_not_file device" "/dev/zero: not a regular file (it is a device)"
	run 2 folder timeout 10 "$TINGSHU" build -q --voice ./presets -o out ch.txt
	err_has "voice_not_file folder" "./presets: not a regular file (it is a folder)"
	[ -e out ] && fail "voice_not_file: the output folder was made"
	mkfifo presets/slow.voice
	run 2 fifo timeout 10 "$TINGSHU" pinyin --voice presets/slow.voice ch.txt
	err_has "voice_not_file fifo" "presets/slow.voice: not a regular file (it is a named pipe)"
	;;

fifo_chapter)
	# A named pipe among the chapters of a folder is refused (it used to
	# stop the build for ever); the others are built.
	mkdir chapters
	good_chapter chapters/01.txt
	mkfifo chapters/02.txt
	run 1 build timeout 50 "$TINGSHU" build -q -o out chapters
	err_has fifo_chapter "chapters/02.txt: not a regular file (it is a named pipe)"
	n=$(find out -name '*.wav' | wc -l)
	[ "$n" -eq 1 ] || fail "fifo_chapter: $n audio files, expected 1"
	no_temp_files out fifo_chapter
	;;

stdin_zero)
	# Standard input is checked as it comes: endless NUL bytes stop at
	# once, nothing is left in TMPDIR (it used to fill it).
	use_tmpdir
	for cmd in text pinyin; do
		SECONDS=0
		run 1 "$cmd" timeout 10 bash -c '"$1" "$2" - </dev/zero' _ "$TINGSHU" "$cmd"
		err_has "stdin_zero $cmd" "stdin:1: NUL byte at byte 0: this is a binary file, not text"
		[ "$SECONDS" -le 5 ] || fail "stdin_zero: $cmd took $SECONDS s"
		tmp_empty "stdin_zero $cmd"
	done
	# An endless stream of text stops at the limit, which
	# TINGSHU_STDIN_MAX sets.
	run 1 limit timeout 20 bash -c 'yes 天刚亮，村口的老槐树下站着一个少年。 |
		TINGSHU_STDIN_MAX=2M "$1" text -' _ "$TINGSHU"
	err_has "stdin_zero limit" "stdin: more than 2 MB" "TINGSHU_STDIN_MAX"
	tmp_empty "stdin_zero limit"
	yes 天刚亮，村口的老槐树下站着一个少年。 | head -n 1000 >ch.txt
	run 0 under bash -c 'TINGSHU_STDIN_MAX=2M "$1" text - <ch.txt' _ "$TINGSHU"
	[ "$(wc -l <"$RUN_OUT")" -eq 1000 ] || fail "stdin_zero: text under the limit not read whole"
	run 1 bad_limit bash -c 'TINGSHU_STDIN_MAX=lots "$1" text - <ch.txt' _ "$TINGSHU"
	err_has "stdin_zero bad_limit" "TINGSHU_STDIN_MAX=lots: not a size"
	tmp_empty "stdin_zero"
	;;

stdin_binary)
	# build - with binary data after some text: refused at the first NUL
	# byte, no audio, nothing left in TMPDIR.
	use_tmpdir
	write_chapter body.txt 2
	{
		printf '第一章 开始\n'
		cat body.txt
		printf 'abc'
	} >data.bin
	nul=$(wc -c <data.bin)
	{
		printf '\0\1\2\3'
		head -c 300000 /dev/urandom
	} >>data.bin
	run 1 build timeout 20 bash -c '"$1" build -q -o out - <data.bin' _ "$TINGSHU"
	err_has stdin_binary "stdin:4: NUL byte at byte $nul: this is a binary file, not text"
	no_audio out stdin_binary
	tmp_empty stdin_binary
	run 1 endless timeout 10 bash -c 'cat /dev/urandom | "$1" build -q -o out2 -' _ "$TINGSHU"
	err_has "stdin_binary endless" "stdin:" "binary file, not text"
	no_audio out2 stdin_binary
	tmp_empty "stdin_binary endless"
	;;

interrupt_decode)
	# SIGINT, SIGTERM and SIGHUP while a large GB18030 input is being
	# decoded into its UTF-8 copy in TMPDIR: exit 130, the copy removed.
	use_tmpdir
	big_gbk big-gbk.txt
	for sig in INT TERM HUP; do
		for cmd in text build; do
			args=("$cmd" big-gbk.txt)
			[ "$cmd" = build ] && args=(build -q -o "out-$sig" big-gbk.txt)
			"$TINGSHU" "${args[@]}" >"logs-$sig-$cmd.out" 2>"logs-$sig-$cmd.err" &
			pid=$!
			for ((i = 0; i < 1000; i++)); do
				[ -n "$(find "$TMPDIR" -name 'tingshu-utf8-*' -size +0)" ] && break
				sleep 0.01
			done
			[ -n "$(find "$TMPDIR" -name "tingshu-utf8-$pid@$HOST_TAG-*")" ] ||
				fail "interrupt_decode $sig $cmd: no UTF-8 copy named after pid $pid in TMPDIR: $(ls "$TMPDIR")"
			kill -"$sig" "$pid" || fail "interrupt_decode $sig $cmd: the run was over before the signal"
			wait "$pid"
			rc=$?
			[ "$rc" -eq 130 ] || fail "interrupt_decode $sig $cmd: exit code $rc, expected 130"
			grep -q interrupted "logs-$sig-$cmd.err" ||
				fail "interrupt_decode $sig $cmd: no message: $(head -c 300 "logs-$sig-$cmd.err")"
			tmp_empty "interrupt_decode $sig $cmd"
			no_audio "out-$sig" "interrupt_decode $sig"
		done
	done
	;;

interrupt_stdin)
	# SIGINT and SIGTERM while standard input is being copied into
	# TMPDIR, and while tingshu waits for it to say something: exit 130 at
	# once, the copy removed.
	use_tmpdir
	for sig in INT TERM; do
		yes 天刚亮，村口的老槐树下站着一个少年。 | "$TINGSHU" text - >/dev/null 2>"stream-$sig.err" &
		pid=$!
		for ((i = 0; i < 1000; i++)); do
			[ -n "$(find "$TMPDIR" -name "tingshu-stdin-$pid@$HOST_TAG-*" -size +0)" ] && break
			sleep 0.01
		done
		[ -n "$(find "$TMPDIR" -name "tingshu-stdin-$pid@$HOST_TAG-*")" ] ||
			fail "interrupt_stdin $sig: no copy of stdin named after pid $pid in TMPDIR: $(ls "$TMPDIR")"
		kill -"$sig" "$pid" || fail "interrupt_stdin $sig: the run was over before the signal"
		wait "$pid"
		rc=$?
		[ "$rc" -eq 130 ] || fail "interrupt_stdin $sig: exit code $rc, expected 130"
		grep -q interrupted "stream-$sig.err" || fail "interrupt_stdin $sig: no message"
		tmp_empty "interrupt_stdin $sig"
		# Nothing comes (a pipe we hold open and never write): the signal
		# ends the wait.
		rm -f idle && mkfifo idle
		exec 9<>idle
		"$TINGSHU" build -q -o "out-$sig" - <idle 2>"idle-$sig.err" &
		pid=$!
		# (Once it catches the signal: a loaded machine can take longer
		# than any fixed wait to start it, and the signal then kills it.)
		for ((i = 0; i < 1000; i++)); do
			catches "$pid" "$sig" && break
			sleep 0.01
		done
		sleep 0.3
		SECONDS=0
		kill -"$sig" "$pid"
		wait "$pid"
		rc=$?
		[ "$rc" -eq 130 ] || fail "interrupt_stdin $sig idle: exit code $rc, expected 130"
		exec 9>&-
		[ "$SECONDS" -le 5 ] || fail "interrupt_stdin $sig idle: took $SECONDS s to stop"
		tmp_empty "interrupt_stdin $sig idle"
		no_audio "out-$sig" "interrupt_stdin $sig"
	done
	;;

stale_temp)
	# What a run killed with SIGKILL left in TMPDIR is removed by the
	# next run on this machine; a live process's, another machine's and
	# another program's are not.
	use_tmpdir
	good_chapter ch.txt
	big_gbk big-gbk.txt
	"$TINGSHU" text big-gbk.txt >/dev/null 2>&1 &
	pid=$!
	for ((i = 0; i < 1000; i++)); do
		[ -n "$(find "$TMPDIR" -name 'tingshu-utf8-*')" ] && break
		sleep 0.01
	done
	kill -KILL "$pid"
	wait "$pid"
	killed=$(find "$TMPDIR" -name "tingshu-utf8-$pid@*" -printf '%f')
	[ -n "$killed" ] || fail "stale_temp: no UTF-8 copy named after pid $pid in TMPDIR: $(ls "$TMPDIR")"
	# A pid no process can have (above pid_max): that of a process that
	# exited can be taken by another before the sweep, on a busy machine.
	dead=$(($(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 4194304) + 1))
	sleep 60 &
	live=$!
	echo x >"$TMPDIR/tingshu-stdin-$dead@$HOST_TAG-AbC123"
	echo x >"$TMPDIR/tingshu-utf8-$live@$HOST_TAG-AbC123"
	echo x >"$TMPDIR/tingshu-utf8-$dead@elsewhere.example-AbC123"
	echo x >"$TMPDIR/tingshu-utf8-XyZ789"
	echo x >"$TMPDIR/notes-$dead@$HOST_TAG-AbC123"
	run 0 next "$TINGSHU" text ch.txt
	for f in "$killed" "tingshu-stdin-$dead@$HOST_TAG-AbC123"; do
		[ -e "$TMPDIR/$f" ] && fail "stale_temp: $f of a dead run was left"
	done
	for f in "tingshu-utf8-$live@$HOST_TAG-AbC123" "tingshu-utf8-$dead@elsewhere.example-AbC123" \
		tingshu-utf8-XyZ789 "notes-$dead@$HOST_TAG-AbC123"; do
		[ -e "$TMPDIR/$f" ] || fail "stale_temp: $f was removed"
	done
	kill "$live"
	;;

*)
	e2e_die "unknown case '$CASE'"
	;;
esac

e2e_finish
