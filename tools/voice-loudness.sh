#!/bin/sh
# tools/voice-loudness.sh [BUILD_DIR [PRESET...]] - the loudness_lufs of
# voice presets: the mean integrated loudness (EBU R 128, libebur128 by
# the tests' loudness tool) of four chapters spoken with --loudness off:
# the two seeds, the novel development sentences and the 三国演义-style
# dialogue of the tests.  eSpeak's level depends on the voice, little on
# the text (the chapters of one voice are within 0.5 LU of each other).
# Default: BUILD_DIR build, every shipped preset.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
[ $# -gt 0 ] && shift
presets=${*:-$(for f in voices/*.voice; do basename "$f" .voice; done)}
tool=$build/tests/e2e/loudness
[ -x "$build/tingshu" ] && [ -x "$tool" ] || {
	echo "voice-loudness: build $build first (tingshu and tests/e2e/loudness)" >&2
	exit 2
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/book"
cp seeds/*.txt "$work/book/"
sed 's/▁//g' tests/data/novel/dev.sent >"$work/book/novel.txt"
sed 's/{[^}]*}//g' tests/data/dialogue/dev_sanguo.ann >"$work/book/sanguo.txt"
for v in $presets; do
	rm -rf "$work/out"
	"$build/tingshu" build -q -j2 --loudness off --voice "$v" -o "$work/out" "$work/book"
	for f in "$work"/out/*.wav; do
		"$tool" "$f" | sed -n 's/^lufs=//p'
	done | awk -v v="$v" '{ s += $1; n++; if (n == 1 || $1 < lo) lo = $1; if (n == 1 || $1 > hi) hi = $1 }
		END { printf "%s\tloudness_lufs = %.2f\t(%d chapters, %.2f to %.2f)\n", v, s / n, n, lo, hi }'
done
