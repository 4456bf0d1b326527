#!/usr/bin/env bash
# bench/websplit.sh - whether splitting a web novel into chapters stays
# linear in its length: web-novel-like .txt files of 375, 750, 1,500 and
# BENCH_WEB_CHAPTERS (default 3,000) chapters of about 1,700 characters
# (5 million at 3,000) made from the seeds' paragraphs, with a volume line
# every 100 chapters (numbers that start again in each volume), a chapter
# posted twice every 50 and a heading repeated over other text every 70,
# read by `tingshu build --dry-run` (the plan: the file split, titled, its
# repeats found, the chapters named), BENCH_RUNS times each (default 3).
#
# Usage: bench/websplit.sh [BUILD_DIR]          (default BUILD_DIR: build)
#
# Prints, per file: chapters listed, characters, median wall and CPU
# seconds, peak resident memory in MB, and the CPU time over the file
# half its size's (CPU: on a shared machine the wall time is mostly
# waiting).  Exit 0, or 2 when a run fails.
set -euo pipefail
export LC_ALL=C.UTF-8

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
bench_setup "${1:-build}" 3
top=${BENCH_WEB_CHAPTERS:-3000}
[[ $top =~ ^[1-9][0-9]*$ ]] || die "BENCH_WEB_CHAPTERS must be a positive integer, not '$top'"
[[ -x /usr/bin/time ]] || die "needs GNU time at /usr/bin/time"
command -v python3 >/dev/null || die "needs python3 to make the books"
bench_workdir websplit

# make_book CHAPTERS FILE
make_book() {
	python3 - "$1" "$2" "${seed_files[@]}" <<'PY'
import random, sys
n, out, seeds = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
paras = [l.strip() for s in seeds for l in open(s, encoding='utf-8') if len(l.strip()) > 20]
rnd = random.Random(7)
cn = '零一二三四五六七八九'
lines = ['《潜龙》', '作者：某某', '']
for i in range(n):
    if i % 100 == 0:
        v = i // 100 + 1
        vn = str(v) if v >= 100 else ((cn[v // 10] if v >= 20 else '') +
                                      ('十' if v >= 10 else '') + (cn[v % 10] if v % 10 else ''))
        lines.append(f'第{vn}卷 卷名{v}')
    body, size = [], 0
    while size < 1700:
        p = rnd.choice(paras)
        body.append('　　' + p)
        size += len(p)
    chapter = [f'第{i % 100 + 1}章 标题{i}'] + body
    lines += chapter
    if i % 50 == 49:
        lines += chapter  # a repost's repeat
    elif i % 70 == 69:
        lines += [chapter[0], '　　' + rnd.choice(paras)]  # same heading, other text
open(out, 'w', encoding='utf-8').write('\n'.join(lines) + '\n')
PY
}

# measure FILE: "chapters chars wall cpu peak_MB", medians over the runs.
measure() {
	local f=$1 i walls=() cpus=() peaks=()
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -o "$work/time" -f '%e %U %S %M' \
			"$tingshu" build --dry-run -o "$work/out" "$f" >"$work/dry" 2>"$work/err" ||
			die "failed: $tingshu build --dry-run $f ($(tail -n 3 "$work/err"))"
		read -r w u s m <"$work/time"
		walls+=("$w")
		cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')")
		peaks+=("$m")
	done
	printf '%s %s %s %s %s\n' "$(grep -c $'\t' "$work/dry")" \
		"$(awk -F'\t' '{ gsub(/ chars/, "", $3); n += $3 } END { print n }' "$work/dry")" \
		"$(median "${walls[@]}")" "$(median "${cpus[@]}")" $(($(median "${peaks[@]}") / 1024))
}

printf '%s\n' "chapters | characters | wall s | CPU s | peak MB | CPU / half's"
prev=
for n in $((top / 8)) $((top / 4)) $((top / 2)) "$top"; do
	make_book "$n" "$work/book$n.txt"
	read -r listed text wall cpu peak < <(measure "$work/book$n.txt")
	printf '%s | %s | %s | %s | %s | %s\n' "$listed" "$text" "$wall" "$cpu" "$peak" \
		"${prev:+$(ratio "$cpu" "$prev")}"
	prev=$cpu
done
