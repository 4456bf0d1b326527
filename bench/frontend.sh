#!/bin/bash
# Front-end speed: how many MB of text per second `tingshu text` (clean,
# normalize) and `tingshu text --sentences` (also segment) handle on one
# core.  Target: at least 5 MB/s, so that the front end stays under 1% of
# synthesis time (eSpeak NG speaks about 8 KB of UTF-8 Chinese a second).
# Usage: bench/frontend.sh [BUILD_DIR] (default build); BENCH_MB sets the
# input size (default 20).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
tingshu=$build/tingshu
[ -x "$tingshu" ] || { echo "bench/frontend.sh: no $tingshu; build first" >&2; exit 2; }
mb=${BENCH_MB:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Realistic mixed input: the seeds (traditional with lookalikes, simplified),
# a paragraph dense with numbers, and a web-scraped paragraph with markup.
{
	cat seeds/*.txt
	echo '公元1644年3月19日，他花了￥1,299.99，气温-5℃到3℃，跑了5km用时25min，比分3:1，电话138-1234-5678，涨了12.5%。'
	echo '<p>&nbsp;&nbsp;他说：&ldquo;好的&rdquo;。<br/>请访问 www.example.com 获取更多内容&hellip;</p>'
} >"$work/unit.txt"
unit=$(stat -c %s "$work/unit.txt")
reps=$(( mb * 1024 * 1024 / unit + 1 ))
for ((i = 0; i < reps; i++)); do cat "$work/unit.txt"; done >"$work/big.txt"
size=$(stat -c %s "$work/big.txt")

rate() { # best of 3 runs: MB/s
	local best=999999 t
	for _ in 1 2 3; do
		t=$( { /usr/bin/time -f %e "$@" >/dev/null; } 2>&1 | tail -n 1)
		best=$(echo "$t $best" | awk '{print ($1 < $2) ? $1 : $2}')
	done
	echo "$size $best" | awk '{printf "%.1f", ($1 / 1048576) / ($2 > 0 ? $2 : 0.01)}'
}
r_text=$(rate "$tingshu" text -q "$work/big.txt")
r_sent=$(rate "$tingshu" text -q --sentences "$work/big.txt")
printf 'input: %.1f MB\n' "$(echo "$size" | awk '{print $1 / 1048576}')"
printf 'tingshu text              %6s MB/s\n' "$r_text"
printf 'tingshu text --sentences  %6s MB/s   (target >= 5)\n' "$r_sent"
awk -v r="$r_sent" 'BEGIN { if (r >= 5) { print "PASS"; exit 0 } print "FAIL"; exit 1 }'
