#!/bin/bash
# e2e_install: install into a temporary prefix; the installed program finds
# its voices under PREFIX/share/tingshu/voices from any working directory.
#   bash install.sh TINGSHU SRC WAVINFO SCRATCH BUILD_DIR CMAKE
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq
BUILD_DIR=${E2E_ARGS[0]:-}
CMAKE=${E2E_ARGS[1]:-cmake}
[ -f "$BUILD_DIR/cmake_install.cmake" ] || e2e_die "no cmake_install.cmake in build dir '$BUILD_DIR'"

PREFIX=$SCRATCH/prefix
run 0 install "$CMAKE" --install "$BUILD_DIR" --prefix "$PREFIX" || e2e_finish
BIN=$PREFIX/bin/tingshu
[ -x "$BIN" ] || e2e_die "no $BIN after install: $(cd "$PREFIX" && find . | tr '\n' ' ')"
VDIR=$PREFIX/share/tingshu/voices
[ -f "$VDIR/cmn.voice" ] || fail "no $VDIR/cmn.voice after install"
[ -f "$VDIR/cmn-f.voice" ] || fail "no $VDIR/cmn-f.voice after install"

# Prove the installed voices are the ones found: mark the installed copy.
sed -i 's/^description *=.*/description = installed copy (e2e)/' "$VDIR/cmn.voice"

mkdir elsewhere && cd elsewhere || exit 1
run 0 voices "$BIN" voices
grep -qE '^cmn[[:space:]].*installed copy \(e2e\)' "$RUN_OUT" ||
	fail "installed tingshu does not read $VDIR: $(cat "$RUN_OUT")"
grep -qE '^cmn-f([[:space:]]|$)' "$RUN_OUT" || fail "installed tingshu does not list cmn-f"

# The same through a symlink on PATH, from yet another directory.
mkdir -p "$SCRATCH/pathbin" && ln -s "$BIN" "$SCRATCH/pathbin/tingshu"
run 0 voices_path env PATH="$SCRATCH/pathbin:$PATH" tingshu voices
grep -q 'installed copy (e2e)' "$RUN_OUT" || fail "tingshu run through a symlink on PATH does not find the installed voices"

write_chapter ch.txt 2
run 0 build "$BIN" build -q -j1 -o out ch.txt
jq -e '.chapters | length == 1' out/manifest.json >/dev/null 2>&1 || fail "installed tingshu: no chapter in the manifest"
a=out/$(jq -r '.chapters[0].audio' out/manifest.json 2>/dev/null)
[ -f "$a" ] && check_wav "$a" "" "installed build"
run 0 build_f "$BIN" build -q -j1 --voice cmn-f -o out_f ch.txt

e2e_finish
