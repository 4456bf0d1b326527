#!/bin/bash
# e2e_wholebook_stop: the whole-book files and what stops or repeats them
# (issue 37, problems 5 and 9; issue 35).
#   - SIGTERM while the M4B is assembled, and while the EPUB is, and while
#     the AAC of chapters built without --book is encoded: exit 130 at
#     once, no temporary file left, the M4B and EPUB made before kept as
#     they were;
#   - kill -9 while the M4B is assembled: the M4B and EPUB made before
#     kept, and the next build completes them;
#   - two clean builds of one book a few seconds apart give the same EPUB,
#     byte for byte; SOURCE_DATE_EPOCH sets its dcterms:modified;
#   - an up-to-date book in a folder the build cannot write exits 0 (as
#     user 65534 when run as root); one with a chapter to make exits 1.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq
M4BINFO=$(realpath "${E2E_ARGS[0]}")
[ -x "$M4BINFO" ] || e2e_die "m4binfo tool ${E2E_ARGS[0]} is missing"
T=$TINGSHU
opts=(build -j2 --loudness off)
# A cover makes the whole-book files again, not the chapters.  Assembled
# from the chapters' AAC, a book of two short chapters is made in a few
# milliseconds: a cover of 19 MB (a JPEG's header, then bytes) makes its
# files last long enough to be caught being made.
big_cover() { # FILE SEED
	{
		printf '\xff\xd8\xff\xc0\x00\x11\x08\x00\x02\x00\x03\x03\x01\x11\x00\x02\x11\x00\x03\x11\x00'
		head -c 19000000 /dev/zero | tr '\0' "$2"
	} >"$1"
}
big_cover cover.jpg a

long=""
for i in $(seq 1 60); do long+="这是第${i}句话，讲的是一个很长的故事。"; done
printf '第一章 长\n%s\n第二章 短\n小明走进了房间。他看见一只猫。\n' "$long" >book.txt

run 0 first "$T" "${opts[@]}" --book m4b,epub -o out book.txt
md5sum out/book.m4b out/book.epub >logs/before.md5

# stop_at LABEL PATTERN ARGS...: a build with ARGS, sent SIGTERM as soon
# as out holds a file matching PATTERN; it must exit 130 and leave the
# folder's whole-book files as they were, and no temporary file.
# SIG (default TERM) is the signal; in DIR (default out).
stop_at() {
	local label=$1 pat=$2 pid seen= rc
	shift 2
	"$T" "${opts[@]}" "$@" -o out book.txt >"logs/$label.out" 2>"logs/$label.err" &
	pid=$!
	for _ in $(seq 1 3000); do
		# A glob, not find: the signal follows at once.
		if compgen -G "${DIR:-out}/$pat" >/dev/null; then
			seen=1
			break
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.002
	done
	kill -"${SIG:-TERM}" "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	if [ -z "$seen" ]; then
		fail "$label: no $pat seen before the build ended (exit $rc)"
		return
	fi
	md5sum -c --quiet logs/before.md5 >/dev/null 2>&1 ||
		fail "$label: the whole-book files made before were not kept"
	if [ "${SIG:-TERM}" = KILL ]; then
		[ "$rc" -eq 137 ] && pass "$label: killed while it is made" ||
			fail "$label: kill -9: exit $rc"
		return
	fi
	RUN_ERR=logs/$label.err
	if [ "$rc" -eq 130 ]; then
		pass "$label: SIGTERM while it is made: exit 130"
	else
		fail "$label: SIGTERM while it is made: exit $rc, expected 130"
		show_err
	fi
	err_has "$label" "interrupted"
	no_temp_files out "$label"
}
stop_at m4b '.book.m4b.part-*' --book m4b,epub --cover cover.jpg
big_cover cover2.jpg b # another cover: another EPUB
stop_at epub '.book.epub.part-*' --book epub --cover cover2.jpg
SIG=KILL stop_at m4b_kill9 '.book.m4b.part-*' --book m4b,epub --cover cover.jpg
run 0 after_kill9 "$T" "${opts[@]}" --book m4b,epub --cover cover.jpg -o out book.txt
no_temp_files out after_kill9
md5sum -c --quiet logs/before.md5 >/dev/null 2>&1 &&
	fail "after kill -9, the next build did not make the M4B and EPUB again"
"$M4BINFO" out/book.m4b >logs/m4binfo.txt 2>&1 && [ "$(grep -c '^chapter ' logs/m4binfo.txt)" = 2 ] ||
	fail "after kill -9: the M4B made next is not read as a book of 2 chapters: $(cat logs/m4binfo.txt)"
unzip -tq out/book.epub >/dev/null || fail "after kill -9: the EPUB made next is damaged"
# The AAC of chapters built without it (here: removed), encoded when a
# whole-book file wants it; stopped while it is.
md5sum out/book.m4b out/book.epub >logs/before.md5
rm -f out/.tingshu/aac/*.aac
DIR=out/.tingshu/aac stop_at aac '.*.aac.part-*' --book m4b,epub --cover cover2.jpg

# --- problem 9: the same EPUB every time; a read-only up-to-date book -----------
printf '第一章\n你好。今天天气很好。\n第二章\n我们去公园吧。\n' >small.txt
run 0 epub1 "$T" "${opts[@]}" --book epub -o e1 small.txt
sleep 1.1 # the chapter files of the next build are a second younger
run 0 epub2 "$T" "${opts[@]}" --book epub -o e2 small.txt
if cmp -s e1/small.epub e2/small.epub; then
	pass "two clean builds give the same EPUB"
else
	fail "two clean builds give different EPUBs: $(unzip -p e1/small.epub EPUB/package.opf | grep modified) vs $(unzip -p e2/small.epub EPUB/package.opf | grep modified)"
fi
SOURCE_DATE_EPOCH=1700000000 run 0 epub_sde "$T" "${opts[@]}" --book epub -o e3 small.txt
unzip -p e3/small.epub EPUB/package.opf | grep -qF '"dcterms:modified">2023-11-14T22:13:20Z<' ||
	fail "SOURCE_DATE_EPOCH=1700000000: $(unzip -p e3/small.epub EPUB/package.opf | grep modified)"
SOURCE_DATE_EPOCH=soon run 1 epub_bad_sde "$T" "${opts[@]}" --book epub -o e4 small.txt &&
	err_has epub_bad_sde "SOURCE_DATE_EPOCH=soon"

# An up-to-date book in a folder this user cannot write: read, not written.
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
chmod a+rx "$SCRATCH"
as=()
if [ "$(id -u)" -eq 0 ]; then
	if command -v setpriv >/dev/null 2>&1 && "${NOBODY[@]}" test -x "$TINGSHU" 2>/dev/null &&
		"${NOBODY[@]}" test -x "$SCRATCH" 2>/dev/null; then
		as=("${NOBODY[@]}")
	else
		as=(skip)
	fi
fi
if [ "${as[0]:-}" = skip ]; then
	echo "note: running as root without setpriv: read-only folder case not checked"
else
	chmod -R a-w e1
	run 0 readonly "${as[@]}" "$T" "${opts[@]}" --book epub -o e1 small.txt
	err_has readonly "2 chapters up to date"
	run 1 readonly_stale "${as[@]}" "$T" "${opts[@]}" --book epub --rate 1.2 -o e1 small.txt
	err_has readonly_stale "cannot write to output folder"
	chmod -R u+w e1
fi

e2e_finish
