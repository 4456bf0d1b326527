#!/bin/bash
# e2e_valgrind: a small build under valgrind memcheck, following the worker
# processes: no memory errors and no definite leaks in any process.
#   bash valgrind.sh TINGSHU SRC WAVINFO SCRATCH VALGRIND [SUPPRESSIONS]
# (Registered only for builds without sanitizers.)
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
VALGRIND=${E2E_ARGS[0]:-valgrind}
SUPP=${E2E_ARGS[1]:-}
command -v "$VALGRIND" >/dev/null 2>&1 || e2e_skip "valgrind not found"

# About 200 characters: two paragraphs of a seed chapter.
head -n 2 "$SRC/seeds/004_5daa9d81391bddb7.txt" >small.txt
chars=$(wc -m <small.txt)
fcmp "$chars > 120 && $chars < 400" || e2e_die "small chapter has $chars characters"

supp=()
[ -n "$SUPP" ] && [ -f "$SUPP" ] && supp=(--suppressions="$SUPP")
mkdir vg
run any build "$VALGRIND" --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	--trace-children=yes --child-silent-after-fork=no "${supp[@]}" \
	--log-file="$SCRATCH/vg/vg.%p.log" "$TINGSHU" build -q -j1 -o out small.txt
[ "$RC" -ne 99 ] || fail "valgrind found errors in the main process (exit 99)"
[ "$RC" -eq 0 ] || { fail "tingshu under valgrind exited $RC"; show_err; }

logs=(vg/vg.*.log)
[ -f "${logs[0]}" ] || e2e_die "valgrind wrote no log"
[ "${#logs[@]}" -ge 2 ] || fail "only ${#logs[@]} valgrind log: the worker process was not followed"
pids=" $(for l in "${logs[@]}"; do l=${l##*/vg.}; printf '%s ' "${l%.log}"; done)"
for log in "${logs[@]}"; do
	pid=${log##*/vg.}
	pid=${pid%.log}
	ppid=$(sed -n 's/.*Parent PID: //p' "$log" | head -n 1)
	if [[ "$pids" == *" $ppid "* ]]; then what="worker process $pid"; else what="main process $pid"; fi
	if ! grep -q 'ERROR SUMMARY: 0 errors' "$log"; then
		fail "valgrind errors in the $what ($log):"
		sed -n '/HEAP SUMMARY/q;p' "$log" |
			grep -vE 'Memcheck, a memory|Copyright|Using Valgrind|Command:|Parent PID|^==[0-9]+== $' |
			head -n 60 | sed 's/^/  | /' >&2
		grep -A12 'definitely lost in loss record' "$log" | head -n 40 | sed 's/^/  | /' >&2
	fi
	if grep -qE 'definitely lost: [1-9]' "$log"; then
		fail "definite leak in the $what: $(grep -E 'definitely lost: ' "$log" | sed 's/^==[0-9]*== *//')"
	fi
done

# Decoding (GBK detected, UTF-16 by its mark, a bad byte) in the main process.
iconv -f UTF-8 -t GBK small.txt >small-gbk.txt
{ printf '\xFF\xFE'; iconv -f UTF-8 -t UTF-16LE small.txt; } >small-utf16.txt
{ cat small-gbk.txt; printf '\x81\x20\n'; } >small-bad.txt
for f in small-gbk small-utf16 small-bad; do
	run any "text-$f" "$VALGRIND" -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite "${supp[@]}" "$TINGSHU" text "$f.txt"
	[ "$RC" -ne 99 ] || { fail "valgrind found errors in 'tingshu text $f.txt'"; show_err; }
	[ "$RC" -eq 0 ] || [ "$f" = small-bad ] || { fail "'tingshu text $f.txt' under valgrind exited $RC"; show_err; }
done

# And the output is right.
a=$(find out -name '*.wav' | head -n 1)
[ -n "$a" ] && check_wav "$a" "" "valgrind build" || fail "no audio made under valgrind"
no_temp_files out valgrind
e2e_finish
