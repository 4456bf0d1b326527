#!/bin/bash
# A refactoring changes no output: builds tingshu at BASE (a revision) and
# at the work tree, runs outputs.sh with each, and compares what they made,
# file by file (every audio format, timing files, M4B and EPUB, --dialogue
# voices, text, pinyin, speakers, --dry-run, messages and every --help).
# Prints the files that differ and exits 1 if any does.
#
# Usage: tests/refactor/same_outputs.sh [BASE [BUILD]]
#   BASE   a revision (default: HEAD); it is built in a temporary worktree
#   BUILD  the work tree's build folder, made or brought up to date
#          (default: build-same in the work tree)
# Takes about two minutes on two cores.  With SAME_BEFORE=DIR, BASE's
# outputs are kept in DIR (made there the first time, when DIR does not
# exist) and later runs only build and run the work tree.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
base=${1:-HEAD}
build=${2:-$top/build-same}
rev=$(git -C "$top" rev-parse --verify "$base^{commit}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tingshu-same.XXXXXX")
cleanup() {
	git -C "$top" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
jobs=$(nproc)

before=${SAME_BEFORE:-$tmp/before}
if [ -f "$before/SUMS" ] && [ "$(cat "$before/REV" 2>/dev/null)" = "$rev" ]; then
	echo "same_outputs: $base's outputs kept in $before" >&2
else
	[ -e "$before" ] && { echo "same_outputs: $before exists but holds no outputs of $base" >&2; exit 2; }
	git -C "$top" worktree add --detach "$tmp/base" "$rev" >/dev/null 2>&1
	echo "same_outputs: building $base (${rev:0:10})" >&2
	cmake -S "$tmp/base" -B "$tmp/base-build" -DBUILD_TESTING=OFF >/dev/null
	cmake --build "$tmp/base-build" -j"$jobs" --target tingshu >/dev/null
	# The same outputs.sh runs both: the work tree's.
	bash "$top/tests/refactor/outputs.sh" "$tmp/base-build/tingshu" "$before" >&2
	echo "$rev" >"$before/REV"
fi
echo "same_outputs: building the work tree in $build" >&2
cmake -S "$top" -B "$build" >/dev/null
cmake --build "$build" -j"$jobs" --target tingshu >/dev/null
bash "$top/tests/refactor/outputs.sh" "$build/tingshu" "$tmp/after" >&2
# (Kept outputs of an earlier outputs.sh may list SUMS itself.)
if diff <(grep -v '  ./SUMS$' "$before/SUMS") "$tmp/after/SUMS" >"$tmp/diff"; then
	echo "same_outputs: the same $(wc -l <"$tmp/after/SUMS") files as $base"
	exit 0
fi
echo "same_outputs: outputs differ from $base ('<' before, '>' after):" >&2
cat "$tmp/diff" >&2
for f in $(sed -n 's/^> [0-9a-f]*  //p' "$tmp/diff"); do
	case $f in
	./log/*) [ -f "$before/$f" ] && diff "$before/$f" "$tmp/after/$f" | head -20 >&2 ;;
	esac
done
exit 1
