#!/bin/sh
# The library's layers, lowest first: a module may include headers of its
# own layer and of the layers before it, never of a later one, and no two
# modules may include each other, directly or through others.  The command
# line (src/cli) may include the public header and what tingshu.h needs.
# Usage: layers.sh SRCDIR
set -eu
src=${1:?usage: layers.sh SRCDIR}
layers="base text zh input speech audio publish book"
status=0
rank() {
	i=0
	for l in $layers cli; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo 99
}
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for dir in $layers cli; do
	[ -d "$src/$dir" ] || { echo "layers: missing folder src/$dir" >&2; status=1; continue; }
	[ "$dir" = cli ] || head -n 1 "$src/$dir/README" >/dev/null 2>&1 ||
		{ echo "layers: src/$dir has no README saying what lives there" >&2; status=1; }
	r=$(rank "$dir")
	for f in "$src/$dir"/*.[ch]; do
		[ -e "$f" ] || continue
		mod="$dir/$(basename "${f%.*}")"
		for inc in $(sed -n 's/^#include "\([a-z]*\/[a-z_0-9]*\)\.h".*/\1/p' "$f"); do
			l=${inc%%/*}
			ri=$(rank "$l")
			if [ "$ri" -gt "$r" ]; then
				echo "layers: $f includes $inc.h, of the later layer $l" >&2
				status=1
			fi
			[ "$inc" = "$mod" ] || echo "$mod $inc" >>"$edges"
		done
	done
done
# Module cycles: tsort reports them.
if ! sort -u "$edges" | tsort >/dev/null 2>"$edges.err"; then
	echo "layers: module include cycle:" >&2
	cat "$edges.err" >&2
	status=1
fi
rm -f "$edges.err"
[ "$status" = 0 ] && echo "layers: ok ($(sort -u "$edges" | wc -l) module dependencies, all downward)"
exit $status
