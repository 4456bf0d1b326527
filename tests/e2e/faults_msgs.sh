#!/bin/bash
# e2e_faults_msgs_*: what tingshu says under faults and hostile input
# (issue 17), one case per test:
#   bash faults_msgs.sh TINGSHU SRC WAVINFO SCRATCH CASE
# stdout_full        a write to standard output that fails is an error
# preset_names       a variant or latin_voice eSpeak lacks is a preset error
# punctuation_only   a chapter with nothing to speak: warning, skipped
# lexicon_flood      300,000 bad lexicon lines: 21 warnings, not 300,000
# control_chars      controls and bidi overrides are escaped in messages
# long_title         titles are cut at 200 characters
# no_audio_device    eSpeak touches no audio system (HOME unwritable)
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
CASE=${E2E_ARGS[0]:-}
[ -n "$CASE" ] || e2e_die "no case given"

NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
chmod a+rx "$SCRATCH"
umask 022

# no_raw_controls LABEL: the last run's stderr holds no ESC, no C1
# control and no bidirectional override or isolate, as bytes.
no_raw_controls() {
	if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]' "$RUN_ERR"; then
		fail "$1: raw control or bidi characters in the message: $(od -c "$RUN_ERR" | head -n 5)"
	fi
}

case "$CASE" in
stdout_full)
	[ -w /dev/full ] || e2e_skip "no writable /dev/full"
	write_chapter ch.txt 3
	want="tingshu: error: standard output: No space left on device"
	cmds=("text ch.txt" "pinyin ch.txt" "text --sentences ch.txt" "pinyin --explain ch.txt"
		"build --dry-run -o out ch.txt" "voices" "help" "--help" "-h" "build --help"
		"help build" "text --help" "help pinyin" "voices --help" "--version")
	for c in "${cmds[@]}"; do
		# shellcheck disable=SC2086  # the command's words
		"$TINGSHU" $c >/dev/full 2>err.txt
		rc=$?
		[ "$rc" -eq 1 ] || fail "'tingshu $c >/dev/full' exited $rc, expected 1"
		grep -qxF "$want" err.txt || fail "'tingshu $c >/dev/full' said: $(head -c 300 err.txt)"
		[ "$(grep -c . err.txt)" -eq 1 ] || fail "'tingshu $c >/dev/full': more than one message: $(head -c 300 err.txt)"
		# The same into a file works (the test can tell the two apart).
		# shellcheck disable=SC2086
		"$TINGSHU" $c >good.txt 2>err.txt || fail "'tingshu $c' into a file exited $?: $(head -c 300 err.txt)"
		[ -s good.txt ] || fail "'tingshu $c' into a file wrote nothing"
	done
	# Not the input's fault: no "read error" naming it.
	run 1 text_full sh -c "'$TINGSHU' text ch.txt >/dev/full"
	grep -q 'read error' "$RUN_ERR" && fail "text >/dev/full blames the input: $(cat "$RUN_ERR")"
	# A second file is not read once the output failed: one message only.
	cp ch.txt ch2.txt
	run 1 text_two sh -c "'$TINGSHU' text ch.txt ch2.txt >/dev/full"
	err_has text_two "$want"
	grep -q 'ch2.txt' "$RUN_ERR" && fail "text_two: the second file was blamed: $(cat "$RUN_ERR")"
	# Standard output closed.
	run 1 closed sh -c "'$TINGSHU' voices >&-"
	err_has closed "tingshu: error: standard output: "
	# Output larger than any buffer (the text of a long chapter).
	write_chapter long.txt 3000
	run 1 long sh -c "'$TINGSHU' text long.txt >/dev/full"
	err_has long "$want"
	# Nothing to write and a usage error: as before.
	run 2 usage sh -c "'$TINGSHU' build --frobnicate ch.txt >/dev/full"
	grep -q 'standard output' "$RUN_ERR" && fail "usage: a message about standard output with nothing written"
	;;

preset_names)
	write_chapter ch.txt 2
	mkdir v
	sed 's/^variant *=.*/variant = f33/' "$SRC/voices/cmn-f.voice" >v/badvariant.voice
	vline=$(grep -n '^variant *=' v/badvariant.voice | head -n 1 | cut -d: -f1)
	sed 's/^latin_voice *=.*/latin_voice = englsh/' "$SRC/voices/cmn.voice" >v/badlatin.voice
	lline=$(grep -n '^latin_voice *=' v/badlatin.voice | head -n 1 | cut -d: -f1)
	[ -n "$vline" ] && [ -n "$lline" ] || e2e_die "the shipped presets have no variant or latin_voice line"
	# A variant that is not a name but a path out of eSpeak's folder.
	sed 's|^variant *=.*|variant = ../../../../etc/passwd|' "$SRC/voices/cmn-f.voice" >v/pathvariant.voice
	run 2 variant "$TINGSHU" build -q --voices-dir v --voice badvariant -o out ch.txt
	err_has variant "badvariant.voice:$vline:" '"f33"' "variant"
	[ -e out ] && fail "variant: the output folder was made"
	# It names the folder of eSpeak's variants, as eSpeak finds it (the
	# message once said "/voices/!v": the path, unset in the command).
	vdir=$(sed -n 's/.*(its variants are the files of \(.*\))$/\1/p' "$RUN_ERR")
	[ -n "$vdir" ] && [ -f "$vdir/f3" ] || fail "variant: '$vdir' is not the folder of eSpeak's variants"
	run 2 latin "$TINGSHU" build -q --voices-dir v --voice badlatin -o out ch.txt
	err_has latin "badlatin.voice:$lline:" '"englsh"' "latin_voice"
	run 2 path "$TINGSHU" build -q --voices-dir v --voice pathvariant -o out ch.txt
	err_has path "pathvariant.voice:$vline:" "etc/passwd"
	run 2 text "$TINGSHU" text --voices-dir v --voice badvariant ch.txt
	err_has text "badvariant.voice:$vline:"
	[ -s "$RUN_OUT" ] && fail "text: printed with a bad preset"
	run 1 list "$TINGSHU" voices --voices-dir v
	err_has list "badvariant.voice:$vline:" "badlatin.voice:$lline:"
	# Names eSpeak has, as it finds them: a variant by name or number, a
	# voice by file name, path or name, in any case.
	for pair in "variant = f3" "variant = 13" "variant = 0" "latin_voice = en-us" \
		"latin_voice = gmw/en" "latin_voice = EN" "latin_voice = English (America)" \
		"latin_voice = en+f2"; do
		key=${pair%% =*}
		sed "s|^$key *=.*|$pair|" "$SRC/voices/cmn.voice" >v/good.voice
		run 0 "good_${key}" "$TINGSHU" build --dry-run --voices-dir v --voice good -o out ch.txt ||
			fail "'$pair' was refused"
	done
	# Checking the names leaves what decides a chapter's key alone: cmn
	# without its latin_voice line (the default, en) keeps cmn's book.
	grep -v '^latin_voice' "$SRC/voices/cmn.voice" >v/nolatin.voice
	run 0 cmn "$TINGSHU" build -q -j1 -o same ch.txt
	run 0 nolatin "$TINGSHU" build -j1 --voices-dir v --voice nolatin -o same ch.txt
	err_has nolatin "1 chapters up to date"
	sed 's|^latin_voice *=.*|latin_voice = en+f33|' "$SRC/voices/cmn.voice" >v/latinvariant.voice
	run 2 latin_variant "$TINGSHU" build --dry-run --voices-dir v --voice latinvariant -o out ch.txt
	err_has latin_variant "latinvariant.voice:$lline:" '"en+f33"'
	;;

punctuation_only)
	need_jq
	mkdir chapters
	write_chapter chapters/01.txt 2
	printf '。。。！！！……\n——？\n' >chapters/02.txt
	printf '★★★\n' >chapters/03.txt   # the cleaner leaves nothing
	write_chapter chapters/04.txt 1
	run 0 build "$TINGSHU" build -j2 -o out chapters || e2e_finish
	for f in 02.txt 03.txt; do
		grep -F "$f" "$RUN_ERR" | grep -q 'warning: .*nothing to speak.*skipped' ||
			fail "punctuation_only: no warning that $f is skipped: $(cat "$RUN_ERR")"
	done
	grep -q 'error' "$RUN_ERR" && fail "punctuation_only: an error: $(cat "$RUN_ERR")"
	ls out/002-* out/003-* >/dev/null 2>&1 && fail "punctuation_only: files made for 02 or 03: $(ls out)"
	[ "$(find out -name '*.wav' | wc -l)" -eq 2 ] || fail "punctuation_only: $(find out -name '*.wav' | wc -l) audio files, expected 2"
	jq -e '(.chapters | length) == 2 and .complete' out/manifest.json >/dev/null ||
		fail "punctuation_only: manifest: $(jq -c '[.complete, [.chapters[].source]]' out/manifest.json)"
	grep -q 'built 2 of 2 chapters' "$RUN_ERR" || fail "punctuation_only: summary: $(tail -n 1 "$RUN_ERR")"
	# Built again: up to date, skipped again with the warning.
	run 0 again "$TINGSHU" build -j2 -o out chapters
	grep -q '2 chapters up to date' "$RUN_ERR" || fail "punctuation_only again: $(cat "$RUN_ERR")"
	grep -F 02.txt "$RUN_ERR" | grep -q 'nothing to speak' || fail "punctuation_only again: no warning for 02.txt"
	jq -e .complete out/manifest.json >/dev/null || fail "punctuation_only again: not complete"
	# Text in 02: it is built; punctuation again: its files go.
	write_chapter chapters/02.txt 1
	run 0 text "$TINGSHU" build -q -j2 -o out chapters
	ls out/002-*.wav >/dev/null 2>&1 || fail "punctuation_only: 02 with text was not built"
	printf '！！！\n' >chapters/02.txt
	run 0 gone "$TINGSHU" build -q -j2 -o out chapters
	ls out/002-* >/dev/null 2>&1 && fail "punctuation_only: the files of 02 stayed: $(ls out)"
	jq -e '(.chapters | length) == 2 and .complete' out/manifest.json >/dev/null ||
		fail "punctuation_only gone: manifest: $(jq -c '[.complete, [.chapters[].source]]' out/manifest.json)"
	no_temp_files out punctuation_only
	;;

lexicon_flood)
	write_chapter ch.txt 1
	{
		printf '银行\tyin2 xing2\n'
		yes 'not an entry' | head -n 300000
	} >words.txt
	run 0 pinyin timeout 60 "$TINGSHU" pinyin --lexicon words.txt ch.txt
	n=$(grep -c 'warning' "$RUN_ERR")
	[ "$n" -eq 21 ] || fail "lexicon_flood: $n warnings, expected 21"
	err_has lexicon_flood "words.txt:21: " "words.txt: and 299980 more bad lines skipped"
	grep -q 'words.txt:22: ' "$RUN_ERR" && fail "lexicon_flood: line 22 warned of"
	# The entry before them is used.
	printf '银行\n' >bank.txt
	run 0 bank "$TINGSHU" pinyin -q --lexicon words.txt bank.txt
	[ "$(cat "$RUN_OUT")" = "yin2 xing2" ] || fail "lexicon_flood: 银行 read $(cat "$RUN_OUT")"
	[ -s "$RUN_ERR" ] && fail "lexicon_flood: -q printed warnings: $(head -n 2 "$RUN_ERR")"
	;;

control_chars)
	# A file name and a heading with ESC sequences, C1 controls and
	# bidirectional overrides: every message shows them escaped.
	mkdir chapters
	write_chapter chapters/01.txt 1
	bad=$'\e[31mred\e]0;title\a\u202Etxt.\u2066x\u2069\u0085'
	: >"chapters/02$bad.txt"
	printf '第一章 \u202Eevil\e[2J\n\n' >book.txt
	write_chapter body.txt 1
	{
		printf '第二章 好\n'
		cat body.txt
	} >>book.txt
	run 0 dir "$TINGSHU" build --dry-run -o out chapters
	err_has dir '\x1B[31mred' '\u202Etxt' '\u2066x\u2069' '\u0085' '\x07'
	no_raw_controls dir
	run 0 book "$TINGSHU" build --dry-run -o out book.txt
	err_has book '\u202Eevil\x1B[2J'
	no_raw_controls book
	# An input that does not exist, named on the command line.
	run 1 missing "$TINGSHU" build -q -o out $'nosuch\e[2J\u202E.txt'
	err_has missing 'nosuch\x1B[2J\u202E.txt'
	no_raw_controls missing
	# A usage error quoting the command line.
	run 2 usage "$TINGSHU" build --rate $'\e[31m' ch.txt
	err_has usage '\x1B[31m'
	no_raw_controls usage
	# Bytes that are not UTF-8 in a file name.
	: >"chapters/03"$'\xc4\xe3'".txt"
	run 0 bytes "$TINGSHU" build --dry-run -o out chapters
	err_has bytes '03\xC4\xE3'
	;;

long_title)
	need_jq
	mkdir chapters
	long=$(printf 'A%.0s' {1..250})
	write_chapter "chapters/$long.txt" 1
	run 0 dry "$TINGSHU" build --dry-run -o out chapters
	title=$(awk -F'\t' 'NR == 2 { print $4 }' "$RUN_OUT")
	[ "$title" = "$(printf 'A%.0s' {1..199})…" ] || fail "long_title: dry-run title '$title'"
	run 0 build "$TINGSHU" build -q -o out chapters || e2e_finish
	t=$(jq -r '.chapters[0].title' out/manifest.json)
	[ "$t" = "$title" ] || fail "long_title: manifest title '$t'"
	;;

no_audio_device)
	write_chapter ch.txt 2
	runner=()
	if [ "$(id -u)" -eq 0 ]; then
		"${NOBODY[@]}" test -x "$TINGSHU" 2>/dev/null ||
			e2e_skip "running as root without a working setpriv for user 65534"
		runner=("${NOBODY[@]}")
		mkdir out && chmod 777 out
	fi
	# A HOME that cannot be written: libpulse said "Failed to create
	# secure directory" when eSpeak made an audio device.
	run 0 build "${runner[@]}" env HOME=/nonexistent XDG_RUNTIME_DIR=/nonexistent \
		"$TINGSHU" build -q -j2 -o out/book ch.txt
	[ -s "$RUN_ERR" ] && fail "no_audio_device: messages from a quiet build: $(head -c 300 "$RUN_ERR")"
	if command -v strace >/dev/null 2>&1; then
		# LeakSanitizer cannot run under ptrace.
		run 0 traced strace -f -o trace.txt -e trace=connect,openat \
			env HOME=/nonexistent ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			"$TINGSHU" build -q -j1 --force -o out/book ch.txt
		grep -E 'pulse/|/dev/snd|alsa\.conf|asound' trace.txt | grep -v '\.so' | head -n 3 >touched.txt
		[ -s touched.txt ] && fail "no_audio_device: the audio system was touched: $(cat touched.txt)"
	fi
	;;

*)
	e2e_die "unknown case '$CASE'"
	;;
esac

e2e_finish
