#!/bin/bash
# e2e_messages_*: what tingshu says when a book fails as a whole, and of
# hostile values (issue 37, problem 8), one case per test:
#   bash messages.sh TINGSHU SRC WAVINFO SCRATCH CASE
# summary     a book that fails as a whole (a folder at the page's name, a
#             foreign manifest, the M4B on a full disk) still ends with its
#             summary line
# lock_temp   something at the lock's temporary name is said to be what it
#             is, not "a build that is starting"
# long_path   with an -o path of about 4,000 bytes a message keeps its
#             reason (its end)
# shard       --shard 1/1000000 is a part like any other
# emoji       every emoji is counted in the warning, an emoji-only chapter
#             has one too
# decimal     option values are decimal numbers: 0x10, 0x1p1, 1e1, inf no
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
CASE=${E2E_ARGS[0]:-}
[ -n "$CASE" ] || e2e_die "no case given"
T=$TINGSHU
printf '第1章 山路\n第1天，他们走进山里。\n第2章 客栈\n晚上住在客栈。\n' >book.txt

# has_summary NAME: the last run's stderr ends with the summary line.
has_summary() {
	local last
	last=$(tail -n 1 "$RUN_ERR")
	case "$last" in
	"tingshu: built "*" of "*" chapters ("*" into "* | "tingshu: "*" chapters up to date in "*) pass "$1: $last" ;;
	*) fail "$1: no summary line at the end: $(cat "$RUN_ERR")" ;;
	esac
}

case "$CASE" in
summary)
	run 0 first "$T" build -j1 --loudness off -o out book.txt
	# A folder planted at the read-along page's name.
	rm out/index.html && mkdir out/index.html
	run 1 page_dir "$T" build -j1 --loudness off -o out book.txt
	err_has page_dir "out/index.html" "tingshu: 2 chapters up to date in out; the book is not finished (the error above)"
	has_summary page_dir
	rmdir out/index.html
	# A folder that is not a tingshu book: nothing built, a summary all the same.
	mkdir foreign && echo '{}' >foreign/manifest.json
	run 1 foreign "$T" build -j1 --loudness off -o foreign book.txt
	err_has foreign "tingshu did not write" "tingshu: built 0 of 2 chapters (0.0 s of audio) in "
	has_summary foreign
	# -q: errors only, no summary.
	mkdir out/index.html
	run 1 quiet "$T" build -q -j1 --loudness off -o out book.txt
	grep -q 'up to date' "$RUN_ERR" && fail "quiet: a summary line with -q: $(cat "$RUN_ERR")"
	rmdir out/index.html
	# The M4B on a full disk (a small tmpfs, when it can be mounted).
	mkdir disk
	if mount -t tmpfs -o size=2m tmpfs disk 2>/dev/null; then
		trap 'umount "$SCRATCH/disk" 2>/dev/null' EXIT
		run 0 disk_first "$T" build -j1 --loudness off --format opus -o disk/out book.txt
		# Fill the disk but for a little room: the book files fit, the M4B not.
		free=$(df -B1 --output=avail disk | tail -n 1)
		head -c $((free - 40000)) /dev/zero >disk/filler 2>/dev/null
		run 75 disk_m4b "$T" build -j1 --loudness off --format opus --book m4b -o disk/out book.txt
		err_has disk_m4b "No space left on device" "; the book is not finished (the error above)"
		has_summary disk_m4b
		umount disk && trap - EXIT
	elif [ -n "${CI:-}" ]; then
		fail "full disk: cannot mount a tmpfs (CI runs as root and should)"
	else
		echo "note: the M4B on a full disk not tested: cannot mount a tmpfs here"
	fi
	;;

lock_temp)
	# The temporary name of chapter 1's lock, for the build's own pid:
	# the shell plants a link there, then becomes tingshu (exec keeps the pid).
	mkdir -p out/.tingshu/locks
	host=$(hostname)
	run 1 lock_link bash -c 'ln -s "$1/victim" "out/.tingshu/locks/.001-第1章_山路.wav.lock.part-$$@$2" &&
		exec "$3" build -j1 --loudness off -o out book.txt' sh "$SCRATCH" "$host" "$T"
	err_has lock_link "a symbolic link is at the lock's temporary name" "remove it"
	grep -q 'a build that is starting' "$RUN_ERR" && fail "lock_link: said to be a build that is starting: $(cat "$RUN_ERR")"
	[ -e victim ] && fail "lock_link: the link was followed: victim made"
	has_summary lock_link
	;;

long_path)
	long=$SCRATCH
	while [ ${#long} -lt 3800 ]; do long=$long/$(printf 'd%.0s' $(seq 1 200)); done
	mkdir -p "$long/out" || e2e_die "cannot make a path of ${#long} bytes"
	echo '{}' >"$long/out/manifest.json"
	run 1 long_foreign "$T" build -j1 --loudness off -o "$long/out" book.txt
	err_has long_foreign "choose another folder with -o"
	grep -q "^tingshu: error: $SCRATCH/" "$RUN_ERR" || fail "long_foreign: the message lost its start: $(head -c 200 "$RUN_ERR")"
	# A reason from deeper down: the page's name taken by a folder.
	rm "$long/out/manifest.json"
	run 0 long_first "$T" build -j1 --loudness off -o "$long/out" book.txt
	rm "$long/out/index.html" && mkdir "$long/out/index.html"
	run 1 long_page "$T" build -j1 --loudness off -o "$long/out" book.txt
	err_has long_page "index.html: cannot rename into place: Is a directory" "$long/out; the book is not finished"
	;;

shard)
	run 0 shard_million "$T" build -j1 --loudness off --shard 1/1000000 -o out book.txt
	err_has shard_million "built 1 of 2 chapters"
	[ -f "out/001-第1章_山路.wav" ] || fail "shard_million: chapter 1 not built"
	run 0 shard_empty "$T" build -j1 --loudness off --shard 999999/1000000 -o out book.txt
	run 2 shard_bad "$T" build --shard 3/2 -o out book.txt
	err_has shard_bad "--shard takes I/N, part I of N (1 <= I <= N), not '3/2'"
	;;

emoji)
	printf '第1章 山路\n他笑了😀😀😀。她也笑了😀🎉。\n第2章 表情\n😀😀😀🎉🎉\n' >emoji.txt
	run 0 emoji "$T" build -j1 --loudness off -o out emoji.txt
	err_has emoji "chapter \"第1章 山路\": characters the voice cannot read: 😀 (U+1F600) ×4, 🎉 (U+1F389) ×1" \
		"chapter \"第2章 表情\": characters the voice cannot read: 😀 (U+1F600) ×3, 🎉 (U+1F389) ×2"
	run 0 emoji_text "$T" text emoji.txt
	err_has emoji_text "characters the voice cannot read: 😀 (U+1F600) ×7, 🎉 (U+1F389) ×3"
	# A chapter file of emoji alone: nothing to speak, and why.
	mkdir dir && printf '🎉🎉🎉🎉\n' >dir/1.txt && printf '他们走进山里。\n' >dir/2.txt
	run 0 emoji_only "$T" build -j1 --loudness off -o out2 dir
	err_has emoji_only "characters the voice cannot read: 🎉 (U+1F389) ×4" "nothing to speak"
	;;

decimal)
	for v in "-j 0x10" "--jobs 1e1" "-j inf" "--rate 0x1p1" "--rate 1e0" "--rate nan" \
		"--loudness -0x14" "--quality 0x4" "--sentence-pause 1e2" "--true-peak -0x1"; do
		# shellcheck disable=SC2086  # the option and its value
		run 2 "decimal${v// /_}" "$T" build $v --dry-run -o out book.txt
		err_has "decimal $v" "takes" "not '${v#* }'"
	done
	for v in "-j 2" "--rate 1.25" "--rate .5" "--loudness -23.5" "--true-peak -1" "--jobs +2"; do
		# shellcheck disable=SC2086
		run 0 "decimal_ok${v// /_}" "$T" build $v --dry-run -o out book.txt
	done
	;;

*) e2e_die "unknown case $CASE" ;;
esac
e2e_finish
