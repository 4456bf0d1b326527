#!/bin/bash
# e2e_folder_safety: tingshu writes and deletes only its own files in its
# output folder (issue 37):
#   1. a link where the state folder (OUT/.tingshu) or one of its folders
#      (chapters/, locks/) belongs is refused with a message naming it;
#      nothing outside the folder is written or deleted;
#   2. a folder holding an index.html or playlist.m3u tingshu did not
#      write is refused, and so is a folder holding another book (another
#      title, other inputs) without --force;
#   4. two builds of different books into one folder at once: the second
#      exits 75 saying who holds the folder; the first book stays whole.
# Tiny books, --loudness off, -j1: a few seconds.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq
T=$TINGSHU

# book FILE N [WORD]: a book of N short chapters ("第I章 WORD"), its
# title its file name.
book() {
	local f=$1 n=$2 word=${3:-山路} i
	: >"$f"
	for ((i = 1; i <= n; i++)); do
		printf '第%d章 %s\n' "$i" "$word" >>"$f"
		write_chapter part.txt 2
		cat part.txt >>"$f"
	done
	rm -f part.txt
}

# listing DIR: every file under DIR with its size, sorted.
listing() {
	(cd "$1" && find . -printf '%P %s %y\n' | LC_ALL=C sort)
}

book a.txt 2
book b.txt 2 河边
B=(build --loudness off -j1)

# --- 1. links where the state folder's folders belong -----------------------
for where in .tingshu/chapters .tingshu/locks .tingshu; do
	tag=${where//[.\/]/_}
	out=out1$tag
	run 0 "link$tag-first" "$T" "${B[@]}" -o "$out" a.txt || continue
	# Somewhere else, files that are not this book's: another book's state.
	mkdir -p "elsewhere$tag"
	cp -r "$out/$where/." "elsewhere$tag/"
	echo "not tingshu's" >"elsewhere$tag/keep.txt"
	printf 'tingshu-chapter 1\nkey 00\nfile 1 x\n' >"elsewhere$tag/zzz.wav.rec"
	before=$(listing "elsewhere$tag")
	rm -r "${out:?}/$where"
	ln -s "$PWD/elsewhere$tag" "$out/$where"
	book a.txt 3 # a chapter more: the build has something to write
	run 1 "link$tag" "$T" "${B[@]}" -o "$out" a.txt
	err_has "link$tag" "$out/$where" "symbolic link" "remove the link"
	[ "$(listing "elsewhere$tag")" = "$before" ] ||
		fail "link$tag: files behind the link $where were changed: $(diff <(echo "$before") <(listing "elsewhere$tag") | head -5)"
	book a.txt 2
done

# --- 2. the user's own files, another book --------------------------------
mkdir web music
echo '<html><body>my site</body></html>' >web/index.html
printf '#EXTM3U\nsong.mp3\n' >music/playlist.m3u
for d in web music; do
	before=$(listing $d; md5sum $d/*)
	run 1 "own-$d" "$T" "${B[@]}" -o $d a.txt
	err_has "own-$d" "tingshu did not write" "-o"
	[ "$(listing $d; md5sum $d/*)" = "$before" ] || fail "own-$d: $d was changed"
done
run 0 other-first "$T" "${B[@]}" -o out2 a.txt
before=$(listing out2)
run 1 other-book "$T" "${B[@]}" -o out2 b.txt
err_has other-book "out2" '"a"' "--force"
[ "$(listing out2)" = "$before" ] || fail "other-book: the book in out2 was changed"
run 0 other-same "$T" "${B[@]}" -o out2 a.txt # the same book again: fine
sed 's/少年/孩子/' a.txt >a-edit.txt # edited under a new name: its chapters
run 0 other-renamed "$T" "${B[@]}" -o out2 a-edit.txt
run 0 other-force "$T" "${B[@]}" --force -o out2 b.txt
[ "$(jq -r .title out2/manifest.json)" = b ] || fail "other-force: out2 does not hold book b"

# --- 4. two books into one folder at once -----------------------------------
book a.txt 6
"$T" "${B[@]}" -o out4 a.txt >logs/first.out 2>logs/first.err &
first=$!
for ((i = 0; i < 500; i++)); do # until the first build is under way
	ls out4/.tingshu/locks/*.lock >/dev/null 2>&1 && break
	sleep 0.01
done
run 75 second "$T" "${B[@]}" --force -o out4 b.txt
err_has second "pid $first"
wait $first
rc=$?
[ $rc = 0 ] || fail "first: exit code $rc: $(cat logs/first.err)"
[ "$(jq -r '.title, .complete, (.chapters | length)' out4/manifest.json 2>/dev/null | tr '\n' ' ')" = "a true 6 " ] ||
	fail "first: out4 is not book a whole: $(jq -c '[.title, .complete, (.chapters | length)]' out4/manifest.json)"
for f in $(jq -r '.chapters[].audio' out4/manifest.json); do
	[ -f "out4/$f" ] || fail "first: $f is gone"
done
e2e_finish
