#!/bin/bash
# e2e_voices_cast: the eight presets to cast speakers with (cmn-m1..4,
# cmn-f1..4) are listed by `tingshu voices`, and a listener can tell them
# apart: the same chapter read by each, the median pitch of every two cast
# voices lies at least 1.5 semitones apart, at least 1 semitone from the
# narrators' (cmn, cmn-f), the men's under 140 Hz and the women's over.
# Extra argument: the pitch tool (tools/pitch.c).
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq
PITCH=${E2E_ARGS[0]:-}
[ -x "$PITCH" ] || e2e_die "pitch tool '$PITCH' is missing"

cast=(cmn-m1 cmn-m2 cmn-m3 cmn-m4 cmn-f1 cmn-f2 cmn-f3 cmn-f4)
run 0 list "$TINGSHU" voices
for v in "${cast[@]}"; do
	grep -qE "^$v[[:space:]]" "$RUN_OUT" || fail "'tingshu voices' does not list $v"
done

write_chapter ch.txt 4
declare -A hz
for v in cmn cmn-f "${cast[@]}"; do
	run 0 "build_$v" "$TINGSHU" build -q -j1 --loudness off --voice "$v" -o "out_$v" ch.txt || continue
	wav=out_$v/$(jq -r '.chapters[0].audio' "out_$v/manifest.json")
	hz[$v]=$("$PITCH" "$wav" | sed -n 's/^median_hz=//p')
	[ -n "${hz[$v]}" ] || fail "$v: no pitch measured in $wav"
	echo "$v median pitch ${hz[$v]} Hz"
done
# semitones between two frequencies
st() { awk -v a="$1" -v b="$2" 'BEGIN { d = 12 * log(a / b) / log(2); print (d < 0 ? -d : d) }'; }
at_least() { awk -v x="$1" -v m="$2" 'BEGIN { exit !(x >= m) }'; }
for ((i = 0; i < ${#cast[@]}; i++)); do
	a=${cast[i]}
	[ -n "${hz[$a]:-}" ] || continue
	for ((j = i + 1; j < ${#cast[@]}; j++)); do
		b=${cast[j]}
		[ -n "${hz[$b]:-}" ] || continue
		d=$(st "${hz[$a]}" "${hz[$b]}")
		at_least "$d" 1.5 || fail "$a (${hz[$a]} Hz) and $b (${hz[$b]} Hz) are only $d semitones apart"
	done
	for n in cmn cmn-f; do
		[ -n "${hz[$n]:-}" ] || continue
		d=$(st "${hz[$a]}" "${hz[$n]}")
		at_least "$d" 1.0 || fail "$a (${hz[$a]} Hz) is only $d semitones from the narrator $n (${hz[$n]} Hz)"
	done
	case $a in
	cmn-m*) at_least 140 "${hz[$a]}" || fail "$a, a man's voice, has a median pitch of ${hz[$a]} Hz" ;;
	cmn-f*) at_least "${hz[$a]}" 140 || fail "$a, a woman's voice, has a median pitch of ${hz[$a]} Hz" ;;
	esac
done
e2e_finish
