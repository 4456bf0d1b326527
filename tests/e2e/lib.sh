# lib.sh - helpers shared by the end-to-end tests (sourced, not run).
#
# Every test script is called as
#   bash TEST.sh TINGSHU SRC_DIR WAVINFO SCRATCH_DIR [EXTRA...]
# and starts with:  . "$(dirname "$0")/lib.sh"; e2e_init "$@"
# which sets $TINGSHU, $SRC, $WAVINFO, $SCRATCH (emptied, and made the
# current directory) and shifts the four paths off into $E2E_ARGS.
#
# Checks do not stop the test: each failed check prints "FAIL: ..." and the
# test goes on so one run shows every problem; e2e_finish exits 1 if any
# check failed.  Use e2e_die for failures after which nothing makes sense.

# shellcheck disable=SC2034  # E2E_ARGS, RUN_OUT, WAV_DURATION: for the tests
set -u
export LC_ALL=C.UTF-8
unset TINGSHU_VOICES

E2E_FAILS=0
E2E_SKIP=77   # SKIP_RETURN_CODE of the tests

e2e_init() {
	if [ $# -lt 4 ]; then
		echo "usage: $0 TINGSHU SRC_DIR WAVINFO SCRATCH_DIR [ARGS...]" >&2
		exit 2
	fi
	TINGSHU=$(realpath "$1")
	SRC=$(realpath "$2")
	WAVINFO=$(realpath "$3")
	SCRATCH=$4
	shift 4
	E2E_ARGS=("$@")
	[ -x "$TINGSHU" ] || e2e_die "tingshu binary $TINGSHU is missing or not executable"
	[ -x "$WAVINFO" ] || e2e_die "wavinfo tool $WAVINFO is missing or not executable"
	[ -d "$SRC/seeds" ] || e2e_die "source dir $SRC has no seeds/"
	case "$SCRATCH" in
	*/e2e*) ;;
	*) e2e_die "refusing to use $SCRATCH as scratch dir (expected a path with /e2e in it)" ;;
	esac
	# A failed earlier run may have left read-only folders behind.
	[ -d "$SCRATCH" ] && chmod -R u+rwX "$SCRATCH" 2>/dev/null
	rm -rf "$SCRATCH"
	mkdir -p "$SCRATCH" || e2e_die "cannot make scratch dir $SCRATCH"
	SCRATCH=$(realpath "$SCRATCH")
	cd "$SCRATCH" || e2e_die "cannot cd to $SCRATCH"
}

e2e_die() {
	echo "FAIL: $*" >&2
	exit 1
}

fail() {
	echo "FAIL: $*" >&2
	E2E_FAILS=$((E2E_FAILS + 1))
}

pass() {
	echo "ok: $*"
}

e2e_skip() {
	echo "SKIP: $*"
	exit "$E2E_SKIP"
}

e2e_finish() {
	if [ "$E2E_FAILS" -ne 0 ]; then
		echo "$E2E_FAILS check(s) failed" >&2
		exit 1
	fi
	echo "all checks passed"
	exit 0
}

need_jq() {
	if ! command -v jq >/dev/null 2>&1; then
		echo "FAIL: this test needs jq to check manifest.json, and jq is not installed." >&2
		echo "      Install it (Debian/Ubuntu: apt-get install -y jq) and run the tests again." >&2
		exit 1
	fi
}

# run RC_EXPECTED NAME CMD...: run CMD with stdout to NAME.out and stderr to
# NAME.err in $SCRATCH/logs (paths in $RUN_OUT, $RUN_ERR); check the exit
# code ("any" accepts any).  $RC holds the exit code.
run() {
	local want=$1 name=$2
	shift 2
	mkdir -p "$SCRATCH/logs"
	"$@" >"$SCRATCH/logs/$name.out" 2>"$SCRATCH/logs/$name.err"
	RC=$?
	RUN_OUT=$SCRATCH/logs/$name.out
	RUN_ERR=$SCRATCH/logs/$name.err
	if [ "$want" != any ] && [ "$RC" -ne "$want" ]; then
		fail "$name: exit code $RC, expected $want: $*"
		show_err
		return 1
	fi
	return 0
}

show_err() {
	if [ -s "$RUN_ERR" ]; then
		echo "  --- stderr of the command:" >&2
		head -n 20 "$RUN_ERR" | sed 's/^/  | /' >&2
	fi
}

# err_has NAME FIXED-STRING...: every string appears in the last run's stderr.
err_has() {
	local name=$1 s
	shift
	for s in "$@"; do
		if ! grep -qF -- "$s" "$RUN_ERR"; then
			fail "$name: stderr does not mention '$s'"
			show_err
		fi
	done
}

# wavinfo FILE KEY: one property of an audio file ("" if it cannot be read).
wav() {
	"$WAVINFO" "$1" 2>/dev/null | sed -n "s/^$2=//p"
}

# fcmp 'EXPR': evaluate a floating-point condition with awk, e.g.
#   fcmp "$a < $b * 2"
fcmp() {
	awk "BEGIN { exit !($1) }"
}

# no_temp_files DIR LABEL: nothing in DIR (recursively) starts with '.',
# but the state folder .tingshu itself (its contents are checked too).
no_temp_files() {
	local dir=$1 label=$2 found
	[ -d "$dir" ] || return 0
	found=$(find "$dir" -mindepth 1 -name '.*' ! -path "$dir/.tingshu" -print)
	if [ -n "$found" ]; then
		fail "$label: temporary files left in $dir: $found"
	fi
}

# check_wav FILE CHARS LABEL: a 22050 Hz mono 16-bit WAV of speech whose
# length suits CHARS characters of text (about 3.5 characters a second;
# CHARS "" skips that check).  Sets WAV_DURATION.
check_wav() {
	local f=$1 chars=$2 label=$3 info
	if ! info=$("$WAVINFO" "$f" 2>&1); then
		fail "$label: wavinfo cannot read $f: $info"
		return 1
	fi
	local rate ch sub major dur peak rms sil
	rate=$(sed -n 's/^rate=//p' <<<"$info")
	ch=$(sed -n 's/^channels=//p' <<<"$info")
	sub=$(sed -n 's/^subtype=//p' <<<"$info")
	major=$(sed -n 's/^major=//p' <<<"$info")
	dur=$(sed -n 's/^duration_s=//p' <<<"$info")
	peak=$(sed -n 's/^peak=//p' <<<"$info")
	rms=$(sed -n 's/^rms_dbfs=//p' <<<"$info")
	sil=$(sed -n 's/^silence_max_s=//p' <<<"$info")
	[ "$major" = WAV ] || fail "$label: $f is $major, not WAV"
	[ "$rate" = 22050 ] || fail "$label: $f has sample rate $rate, expected 22050"
	[ "$ch" = 1 ] || fail "$label: $f has $ch channels, expected 1"
	[ "$sub" = PCM_16 ] || fail "$label: $f is $sub, expected PCM_16"
	if [ -n "$chars" ]; then
		fcmp "$dur >= $chars / 8 && $dur <= $chars / 1.5" ||
			fail "$label: $f lasts $dur s for $chars characters (expected $chars/8 to $chars/1.5 s)"
	fi
	fcmp "$peak > 0" || fail "$label: $f has peak $peak (all zero)"
	fcmp "$rms > -40" || fail "$label: $f has RMS $rms dBFS, too quiet for speech (> -40 expected)"
	# The longest pause of the presets is 1.2 s: 3 s of digital silence is dead air.
	fcmp "$sil < 3" || fail "$label: $f has $sil s of digital silence in one stretch"
	WAV_DURATION=$dur
}

# A short chapter of plain narrative text, about N*40 characters.
write_chapter() {
	local file=$1 n=${2:-3} i
	: >"$file"
	for ((i = 0; i < n; i++)); do
		cat >>"$file" <<'EOF'
天刚亮，村口的老槐树下站着一个少年。他背着包袱，望着远方的山路，心里有些不安。
EOF
	done
}
