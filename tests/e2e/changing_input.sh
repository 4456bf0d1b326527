#!/bin/bash
# e2e_changing_input: a chapter's key and its audio come from the same
# bytes of the input (issue 37, problem 3).  The .txt is emptied while the
# first build speaks its long first chapter (-j1: the short one comes
# after); that build must fail the chapter spoken from the other bytes
# (exit 75, "book.txt changed while it was being built ... build again")
# and record nothing of it.  With the file restored, the next build makes
# that chapter again and the folder is then, file for file, a clean
# build's; a third build finds it up to date.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq
T=$TINGSHU
opts=(build -j1 --loudness off)

long=""
for i in $(seq 1 120); do long+="这是第${i}句话，讲的是一个很长的故事。"; done
printf '第一章 长\n%s\n第二章 短\n小明走进了房间。他看见一只猫。猫在睡觉。\n' "$long" >book.txt
cp book.txt orig.txt

run 0 clean "$T" "${opts[@]}" -o clean book.txt

# The first chapter is being spoken when its temporary files are there.
"$T" "${opts[@]}" -o out book.txt >logs/first.out 2>logs/first.err &
pid=$!
seen=
for _ in $(seq 1 1500); do
	if find out -maxdepth 1 -name '.001-*.part-*' 2>/dev/null | grep -q .; then
		seen=1
		break
	fi
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.01
done
: >book.txt
wait "$pid"
rc=$?
[ -n "$seen" ] || e2e_die "the first build ended before its first chapter was seen (exit $rc)"
RUN_ERR=logs/first.err
if [ "$rc" -eq 75 ]; then
	pass "a build whose input changed under it exits 75"
else
	fail "a build whose input changed under it: exit $rc, expected 75"
	show_err
fi
err_has first "book.txt changed while it was being built" "build again"
no_temp_files out "after the changed build"
cp orig.txt book.txt

run 0 again "$T" "${opts[@]}" -o out book.txt
run 0 third "$T" "${opts[@]}" -o out book.txt
grep -q "2 chapters up to date" "$RUN_OUT" "$RUN_ERR" ||
	fail "third build: not '2 chapters up to date': $(cat "$RUN_ERR")"
got=$(jq -c '[.complete, [.chapters[] | .sentences]]' out/manifest.json)
want=$(jq -c '[.complete, [.chapters[] | .sentences]]' clean/manifest.json)
[ "$got" = "$want" ] || fail "sentences per chapter $got, a clean build has $want"
if diff <(cd out && find . -type f | LC_ALL=C sort | xargs md5sum) \
	<(cd clean && find . -type f | LC_ALL=C sort | xargs md5sum) >logs/diff; then
	pass "after the input is restored, every file is a clean build's"
else
	fail "files differ from a clean build's: $(head -n 8 logs/diff)"
fi
e2e_finish
