#!/bin/bash
# e2e_voices: the shipped presets, a user's own preset, a broken preset,
# the female voice, and --rate.
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
need_jq

# --- the shipped presets ----------------------------------------------------
run 0 list "$TINGSHU" voices
grep -qE '^cmn([[:space:]]|$)' "$RUN_OUT" || fail "'tingshu voices' does not list cmn: $(cat "$RUN_OUT")"
grep -qE '^cmn-f([[:space:]]|$)' "$RUN_OUT" || fail "'tingshu voices' does not list cmn-f: $(cat "$RUN_OUT")"

# --- a user's preset in --voices-dir ---------------------------------------
mkdir myvoices
sed 's/^description *=.*/description = E2E test preset 甲乙/' "$SRC/voices/cmn.voice" >myvoices/mytest.voice
grep -q 'E2E test preset' myvoices/mytest.voice || e2e_die "voices/cmn.voice has no description line to change"
run 0 list_dir "$TINGSHU" voices --voices-dir myvoices
grep -qE '^mytest[[:space:]].*E2E test preset 甲乙' "$RUN_OUT" ||
	fail "'tingshu voices --voices-dir' does not list mytest with its description: $(cat "$RUN_OUT")"
run 0 list_env env TINGSHU_VOICES="$SCRATCH/myvoices" "$TINGSHU" voices
grep -qE '^mytest[[:space:]]' "$RUN_OUT" || fail "TINGSHU_VOICES=DIR: mytest not listed: $(cat "$RUN_OUT")"

write_chapter ch.txt 8   # about 320 characters
run 0 build_mine "$TINGSHU" build -q -j1 --voices-dir myvoices --voice mytest -o out_mine ch.txt
jq -e '.voice == "mytest"' out_mine/manifest.json >/dev/null 2>&1 ||
	fail "--voice mytest: manifest voice is $(jq -c .voice out_mine/manifest.json 2>&1)"

# --- a broken preset: file:line, exit 2 -------------------------------------
mkdir badvoices
cp "$SRC/voices/cmn.voice" badvoices/broken.voice
echo 'this line has no equals sign' >>badvoices/broken.voice
badline=$(wc -l <badvoices/broken.voice)
run 2 build_broken "$TINGSHU" build -q --voices-dir badvoices --voice broken -o out_broken ch.txt
err_has broken "broken.voice:$badline"
no_temp_files out_broken broken
[ -n "$(find out_broken -name '*.wav' 2>/dev/null)" ] && fail "broken preset: audio was made"
# A bad value too.
sed 's/^pitch *=.*/pitch = loud/' "$SRC/voices/cmn.voice" >badvoices/badvalue.voice
pline=$(grep -n '^pitch *=' badvoices/badvalue.voice | head -n 1 | cut -d: -f1)
run 2 build_badvalue "$TINGSHU" build -q --voices-dir badvoices --voice badvalue -o out_badvalue ch.txt
err_has badvalue "badvalue.voice:$pline"

# --- the default voice, the female voice ------------------------------------
run 0 build_cmn "$TINGSHU" build -q -j1 -o out_cmn ch.txt || e2e_finish
run 0 build_f "$TINGSHU" build -q -j1 --voice cmn-f -o out_f ch.txt || e2e_finish
a_cmn=out_cmn/$(jq -r '.chapters[0].audio' out_cmn/manifest.json)
a_f=out_f/$(jq -r '.chapters[0].audio' out_f/manifest.json)
check_wav "$a_cmn" "$(jq '.chapters[0].chars' out_cmn/manifest.json)" "cmn"
d_cmn=$WAV_DURATION
check_wav "$a_f" "$(jq '.chapters[0].chars' out_f/manifest.json)" "cmn-f"
cmp -s "$a_cmn" "$a_f" && fail "--voice cmn-f made the same audio as cmn"
jq -e '.voice == "cmn-f"' out_f/manifest.json >/dev/null || fail "--voice cmn-f: manifest voice is $(jq -c .voice out_f/manifest.json)"
# A preset found by path works like one found by name.
cp "$SRC/voices/cmn-f.voice" myvoices/
run 0 build_path "$TINGSHU" build -q -j1 --voice "$SCRATCH/myvoices/cmn-f.voice" -o out_path ch.txt
a_p=out_path/$(jq -r '.chapters[0].audio' out_path/manifest.json 2>/dev/null)
cmp -s "$a_f" "$a_p" || fail "--voice PATH/cmn-f.voice made different audio from --voice cmn-f"
# The user's copy of cmn, changed only in its description, sounds like cmn.
a_m=out_mine/$(jq -r '.chapters[0].audio' out_mine/manifest.json 2>/dev/null)
cmp -s "$a_cmn" "$a_m" || fail "mytest (cmn with another description) made different audio from cmn"

# --- --rate -----------------------------------------------------------------
run 0 build_fast "$TINGSHU" build -q -j1 --rate 1.5 -o out_fast ch.txt || e2e_finish
a_fast=out_fast/$(jq -r '.chapters[0].audio' out_fast/manifest.json)
check_wav "$a_fast" "" "rate 1.5"
d_fast=$WAV_DURATION
fcmp "$d_fast / $d_cmn >= 0.55 && $d_fast / $d_cmn <= 0.85" ||
	fail "--rate 1.5: $d_fast s against $d_cmn s at the default rate (ratio $(awk "BEGIN{print $d_fast/$d_cmn}"), expected 0.55-0.85)"
jq -e '.settings.rate_factor == 1.5' out_fast/manifest.json >/dev/null ||
	fail "--rate 1.5: manifest settings.rate_factor is $(jq -c .settings.rate_factor out_fast/manifest.json)"
for r in 0 0.1 3 fast; do
	run 2 "rate_$r" "$TINGSHU" build -q --rate "$r" -o out_rate_bad ch.txt
	err_has "rate $r" "--rate"
done
[ -e out_rate_bad ] && fail "a rejected --rate still made the output folder"

e2e_finish
