#!/bin/bash
# e2e_killed_book: a book of many short chapters (a web novel's shape)
# while it is built and after kill -9 (issue 34).  Its manifest, playlist
# and page are written every few seconds, not at every chapter:
#   - during a build left to finish, the manifest never names a file that
#     is not there, and is written far fewer times than there are
#     chapters (each write is a new file renamed into place: its inode);
#   - the build is killed (kill -9, the whole process group) at several
#     moments, one of them as soon as its manifest names a chapter: the
#     manifest and playlist then name only files that are there, each
#     chapter they name has its record, and a plain build completes the
#     folder into every file (its state included) a clean build makes.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq
T=$TINGSHU
opts=(build -q -j2 --loudness off)
N=80
for i in $(seq 1 $N); do
	printf '第%d章 山路\n第%d天，他们走进山里。雨下个不停。\n' "$i" "$i"
done >book.txt

snap() { (cd "$1" && find . -type f ! -path './.tingshu/locks/*' -printf '%P\n' | LC_ALL=C sort |
	xargs -d '\n' md5sum) >"$2"; }

# consistent DIR LABEL: the book files of DIR name only files that are
# there, and a chapter the manifest names has its record.  Sets named to
# how many chapters the manifest names (0 without one).
consistent() {
	local dir=$1 label=$2 kind f
	named=0
	if [ -f "$dir/manifest.json" ]; then
		while read -r kind f; do
			[ -f "$dir/$f" ] || fail "$label: the manifest names $f, which is not there"
			[ "$kind" = t ] && continue
			named=$((named + 1))
			[ -f "$dir/.tingshu/chapters/$f.rec" ] ||
				fail "$label: the manifest names $f, which has no record"
		done < <(jq -r '.chapters[] | "a \(.audio)", (.timing | .[] | "t \(.)")' \
			"$dir/manifest.json" || echo "x manifest.json is not JSON")
	fi
	if [ -f "$dir/playlist.m3u" ]; then
		while read -r f; do
			[ -f "$dir/$f" ] || fail "$label: the playlist names $f, which is not there"
		done < <(grep -v '^#' "$dir/playlist.m3u" | tr -d '\r' | grep .)
	fi
}

# --- a build left to finish, watched ------------------------------------------
"$T" "${opts[@]}" -o ref book.txt >logs.ref 2>&1 &
pid=$!
SECONDS=0
declare -A seen=()
while kill -0 "$pid" 2>/dev/null; do
	if ino=$(stat -c '%i %s %y' ref/manifest.json 2>/dev/null); then
		if [ -z "${seen[$ino]:-}" ]; then
			seen[$ino]=1
			consistent ref "while it is built"
		fi
	fi
	sleep 0.01
done
wait "$pid" || e2e_die "the book does not build: $(cat logs.ref)"
took=$SECONDS
snap ref ref.md5
jq -e ".complete and (.chapters | length) == $N" ref/manifest.json >/dev/null ||
	fail "the clean build's manifest is not complete with $N chapters"
# Every 2 s and at the end (seconds are counted whole).
most=$((took / 2 + 3))
if [ "${#seen[@]}" -le "$most" ]; then
	pass "manifest written ${#seen[@]} times (seen) in a build of $N chapters ($took s)"
else
	fail "manifest written ${#seen[@]} times (seen) in a build of $N chapters in $took s: more than every 2 s"
fi

# --- kill -9 at several moments, then a plain build ----------------------------
caught=
for t in named 0.5 1.5; do
	rm -rf "k$t"
	setsid "$T" "${opts[@]}" -o "k$t" book.txt >/dev/null 2>&1 &
	pid=$!
	SECONDS=0
	if [ "$t" = named ]; then
		# As soon as the manifest names a chapter while the build runs.
		while kill -0 "$pid" 2>/dev/null &&
			! jq -e '.chapters | length > 0' "k$t/manifest.json" >/dev/null 2>&1; do
			sleep 0.01
		done
	else
		sleep "$t"
	fi
	running=0
	kill -0 "$pid" 2>/dev/null && running=1
	kill -9 -- "-$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	consistent "k$t" "kill -9 ($t)"
	n=$named
	echo "kill -9 ($t): after $SECONDS s, the manifest names $n of $N chapters"
	if [ "$t" = named ]; then
		if [ "$running" = 1 ] && [ "$n" -gt 0 ] && [ "$n" -lt "$N" ]; then
			caught=1
		elif [ "$took" -ge 5 ]; then
			fail "no manifest naming part of the book while it was built, though a build takes $took s"
		else
			echo "note: the build ended before its manifest named part of it (a build takes $took s)"
		fi
	fi
	run 0 "resume-$t" "$T" "${opts[@]}" -o "k$t" book.txt
	snap "k$t" "k$t.md5"
	if cmp -s ref.md5 "k$t.md5"; then
		pass "kill -9 ($t), then a build: every file as a clean build makes it"
	else
		fail "kill -9 ($t), then a build: differs from a clean build: $(diff ref.md5 "k$t.md5" | head -6 | tr '\n' ' ')"
	fi
	no_temp_files "k$t" "kill -9 ($t)"
	left=$(find "k$t/.tingshu/locks" -mindepth 1 2>/dev/null)
	[ -z "$left" ] || fail "kill -9 ($t): locks left: $left"
done
[ -n "$caught" ] && pass "killed while its manifest named part of the book"

e2e_finish
