#!/bin/sh
# No function in the library is longer than 100 lines: a longer one does
# several jobs, and is split into helpers that each do one.  A function is
# measured as clang-format lays it out (.clang-format): from its opening
# "{" at column 0, after the signature, to its closing "}" at column 0,
# both counted.
# Usage: functions.sh SRCDIR
set -eu
src=${1:?usage: functions.sh SRCDIR}
max=100
[ -d "$src" ] || { echo "functions: no folder $src" >&2; exit 1; }
files=$(find "$src" -name '*.[ch]' | LC_ALL=C sort)
[ -n "$files" ] || { echo "functions: no C file under $src" >&2; exit 1; }
# shellcheck disable=SC2086 # the file names have no spaces
awk -v max="$max" '
FNR == 1 { start = 0; sig = "" }
# The signature starts at column 0 with a name and holds a "(": its
# continuation lines are indented.
/^[A-Za-z_].*\(/ { sig = $0; sigline = FNR }
/^\{/ { start = FNR; name = sig; line = sigline; next }
/^\}/ && start {
	n = FNR - start + 1
	nfun++
	sub(/\(.*/, "", name)
	sub(/.*[ *]/, "", name)
	if (n > longest) { longest = n; where = FILENAME ": " name "()" }
	if (n > max) {
		printf "functions: %s:%d: %s() is %d lines long, more than %d\n", \
		    FILENAME, line, name, n, max > "/dev/stderr"
		bad++
	}
	start = 0
}
END {
	if (nfun == 0) {
		print "functions: no function found" > "/dev/stderr"
		exit 1
	}
	if (bad) {
		printf "functions: %d of %d functions longer than %d lines: split them\n", \
		    bad, nfun, max > "/dev/stderr"
		exit 1
	}
	printf "functions: ok (%d functions, the longest %d lines: %s)\n", nfun, longest, where
}' $files
