#!/bin/bash
# e2e_help: the help of every command is what tests/e2e/data/help/*.ok
# says (a golden file: the help is generated from the option tables, so a
# change to a table shows here), 'tingshu help CMD' prints the same, and
# every option the help names is one the command accepts.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"

golden=$SRC/tests/e2e/data/help
run 0 main "$TINGSHU" --help
cmp -s "$RUN_OUT" "$golden/main.ok" || fail "tingshu --help differs from main.ok:
$(diff "$golden/main.ok" "$RUN_OUT" | head -20)"
for cmd in build text pinyin speakers voices; do
	run 0 "$cmd-help" "$TINGSHU" "$cmd" --help
	cmp -s "$RUN_OUT" "$golden/$cmd.ok" || fail "tingshu $cmd --help differs from $cmd.ok:
$(diff "$golden/$cmd.ok" "$RUN_OUT" | head -20)"
	cp "$RUN_OUT" "$cmd.help"
	run 0 "help-$cmd" "$TINGSHU" help "$cmd"
	cmp -s "$RUN_OUT" "$cmd.help" || fail "'tingshu help $cmd' differs from '$cmd --help'"
	# Every long option named in the help is known to the parser: given
	# with --help after it, it is not an unknown option.
	for o in $(grep -oE '^  (-[a-z], )?--[a-z-]+' "$cmd.help" | grep -oE -- '--[a-z-]+'); do
		arg=$(grep -oE -- "$o [A-Z]+" "$cmd.help" | head -1 | cut -d' ' -f2)
		if [ -n "$arg" ]; then
			"$TINGSHU" "$cmd" "$o" x --help >/dev/null 2>err.txt
		else
			"$TINGSHU" "$cmd" "$o" --help >/dev/null 2>err.txt
		fi
		grep -q "unknown option" err.txt && fail "$cmd: $o is in the help but unknown"
	done
done
e2e_finish
