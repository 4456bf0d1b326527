#!/bin/bash
# e2e_loudness: every chapter comes out at the target loudness (within
# 0.5 LU) with its true peak under the ceiling, measured afterwards with
# libebur128 on the decoded file (tools/loudness.c), on both seeds, at a
# high and a low speech rate, and at louder targets (-16 LUFS under -3 dBTP
# takes heavy limiting and a warning); --sample-rate keeps the duration; the manifest
# records what was measured; --loudness off keeps eSpeak's level; pacing
# options change the pauses; bad values are usage errors.
# Extra argument: the loudness tool.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq
LOUDNESS=${E2E_ARGS[0]:-}
[ -x "$LOUDNESS" ] || e2e_die "loudness tool '$LOUDNESS' is missing"

# lk FILE KEY: one figure of the loudness tool.
lk() { "$LOUDNESS" "$1" | sed -n "s/^$2=//p"; }

# check_level DIR TARGET CEILING LABEL: every audio file in DIR meets them,
# and the manifest says what the tool measures.
check_level() {
	local dir=$1 target=$2 ceiling=$3 label=$4 f lufs tp i=0 mlufs mtp
	for f in $(jq -r '.chapters[].audio' "$dir/manifest.json"); do
		lufs=$(lk "$dir/$f" lufs)
		tp=$(lk "$dir/$f" true_peak_dbtp)
		fcmp "$lufs >= $target - 0.5 && $lufs <= $target + 0.5" ||
			fail "$label: $f is at $lufs LUFS, target $target"
		fcmp "$tp < $ceiling" || fail "$label: $f has true peak $tp dBTP, ceiling $ceiling"
		mlufs=$(jq -r ".chapters[$i].loudness.output_lufs" "$dir/manifest.json")
		mtp=$(jq -r ".chapters[$i].loudness.true_peak_dbtp" "$dir/manifest.json")
		fcmp "$mlufs - $lufs < 0.1 && $lufs - $mlufs < 0.1" ||
			fail "$label: manifest says $mlufs LUFS for $f, measured $lufs"
		fcmp "$mtp - $tp < 0.2 && $tp - $mtp < 0.2" ||
			fail "$label: manifest says $mtp dBTP for $f, measured $tp"
		pass "$label: $f $lufs LUFS, true peak $tp dBTP"
		i=$((i + 1))
	done
	((i > 0)) || fail "$label: no chapter in $dir/manifest.json"
	fcmp "$(jq -r '.settings.loudness.target_lufs' "$dir/manifest.json") == $target" ||
		fail "$label: manifest target is not $target"
}

mkdir -p seeds
cp "$SRC"/seeds/*.txt seeds/
run 0 seeds "$TINGSHU" build -q -o out-seeds seeds && check_level out-seeds -20 -3 "seeds"

# One seed at a high and a low rate: eSpeak's rate, not resampling.
cp "$SRC/seeds/004_5daa9d81391bddb7.txt" ch.txt
for r in 0.6 1.8; do
	run 0 "rate-$r" "$TINGSHU" build -q --rate "$r" -o "out-rate-$r" ch.txt &&
		check_level "out-rate-$r" -20 -3 "rate $r"
done
d06=$(lk "out-rate-0.6/$(jq -r '.chapters[0].audio' out-rate-0.6/manifest.json)" duration_s)
d18=$(lk "out-rate-1.8/$(jq -r '.chapters[0].audio' out-rate-1.8/manifest.json)" duration_s)
fcmp "$d06 > 2 * $d18" || fail "rate 0.6 lasts $d06 s and 1.8 lasts $d18 s: not slower"
[ "$(lk "out-rate-1.8/$(jq -r '.chapters[0].audio' out-rate-1.8/manifest.json)" rate)" = 22050 ] ||
	fail "rate 1.8: not at eSpeak's own sample rate (resampled?)"

# Other targets.
run 0 target "$TINGSHU" build -q --loudness -16 --true-peak -1 -o out-16 ch.txt &&
	check_level out-16 -16 -1 "target -16/-1"
# A loud target under the default ceiling: the limiter takes off so much
# that the gain must make up for it (before, the level fell short by
# 0.8 LU), and the build warns that the speech was limited heavily.
run 0 loud "$TINGSHU" build --loudness -16 -o out-loud ch.txt &&
	check_level out-loud -16 -3 "target -16/-3"
err_has loud "1 of 1 chapters took more than 3 dB of limiting to reach -16 LUFS"
# Louder than the ceiling allows: built, but said.
run 0 too-loud "$TINGSHU" build --loudness -10 -o out-10 ch.txt
err_has too-loud "1 of 1 chapters could not be brought to -10 LUFS under a true peak of -3 dBTP"
run 0 moderate "$TINGSHU" build --loudness -18 -o out-18 ch.txt &&
	check_level out-18 -18 -3 "target -18/-3"
grep -q "limiting" "$RUN_ERR" && fail "target -18: a warning about limiting: $(cat "$RUN_ERR")"

# Sample rates: same duration, same level.
native=out-seeds/$(jq -r '.chapters[1].audio' out-seeds/manifest.json)
nd=$(lk "$native" duration_s)
for sr in 44100 48000; do
	run 0 "sr-$sr" "$TINGSHU" build -q --sample-rate "$sr" -o "out-$sr" seeds || continue
	f=out-$sr/$(jq -r '.chapters[1].audio' "out-$sr/manifest.json")
	[ "$(lk "$f" rate)" = "$sr" ] || fail "sample rate $sr: file is at $(lk "$f" rate) Hz"
	d=$(lk "$f" duration_s)
	fcmp "$d - $nd < 0.001 && $nd - $d < 0.001" ||
		fail "sample rate $sr: lasts $d s, the 22050 Hz file $nd s"
	[ "$(jq -r '.settings.sample_rate' "out-$sr/manifest.json")" = "$sr" ] ||
		fail "sample rate $sr: manifest settings.sample_rate is not $sr"
	check_level "out-$sr" -20 -3 "sample rate $sr"
	no_temp_files "out-$sr" "sample rate $sr"
done

# Off: eSpeak's own level (louder than -20, peaks near full scale).
run 0 off "$TINGSHU" build -q --loudness off -o out-off ch.txt
[ "$(jq -r '.settings.loudness' out-off/manifest.json)" = null ] ||
	fail "off: manifest settings.loudness is not null"
off_file=out-off/$(jq -r '.chapters[0].audio' out-off/manifest.json)
fcmp "$(lk "$off_file" true_peak_dbtp) > -1" || fail "off: the level was changed"

# Pacing: longer pauses make a longer file; the manifest says so.
run 0 pause-short "$TINGSHU" build -q --sentence-pause 100 --paragraph-pause 200 -o out-p1 ch.txt
run 0 pause-long "$TINGSHU" build -q --sentence-pause 1500 --paragraph-pause 3000 -o out-p2 ch.txt
n_sent=$(jq -r '.chapters[0].sentences' out-p1/manifest.json)
p1=$(lk "out-p1/$(jq -r '.chapters[0].audio' out-p1/manifest.json)" duration_s)
p2=$(lk "out-p2/$(jq -r '.chapters[0].audio' out-p2/manifest.json)" duration_s)
fcmp "$p2 - $p1 > ($n_sent - 1) * 1.2" ||
	fail "pauses: $n_sent sentences, 100 ms pauses give $p1 s and 1500 ms $p2 s"
[ "$(jq -r '.settings.sentence_pause_ms' out-p2/manifest.json)" = 1500 ] ||
	fail "pauses: manifest sentence_pause_ms is not 1500"
[ "$(jq -r '.settings.paragraph_pause_ms' out-p2/manifest.json)" = 3000 ] ||
	fail "pauses: manifest paragraph_pause_ms is not 3000"

# Bad values.
run 2 bad-loudness "$TINGSHU" build --loudness -5 -o out-bad ch.txt && err_has bad-loudness "--loudness" "-40 to -10"
run 2 bad-peak "$TINGSHU" build --true-peak 1 -o out-bad ch.txt && err_has bad-peak "--true-peak"
run 2 bad-rate "$TINGSHU" build --sample-rate 12345 -o out-bad ch.txt && err_has bad-rate "44100 or 48000"
run 2 bad-pause "$TINGSHU" build --sentence-pause x -o out-bad ch.txt && err_has bad-pause "--sentence-pause"
[ -e out-bad ] && fail "bad values: made an output folder"
e2e_finish
