#!/usr/bin/env bash
# bench/webnovel.sh - a web novel of thousands of short chapters against
# the same text in a hundred long ones (issue 34).
#
# Usage: bench/webnovel.sh [BUILD_DIR]      (default BUILD_DIR: build)
#
# Environment:
#   BENCH_SCALE=X   chapters of every book times X (default 1; 0.1 for a
#                   quick look)
#   BENCH_JOBS=N    -j of every build (default 2)
#   BENCH_SEEDS, BENCH_KEEP as for bench/run.sh
#
# Three books, one .txt each with a 第N章 heading a chapter, made from the
# seed chapters' lines (repeated, cut at the chapter's length), so that
# short and long hold the same text:
#   short  1,200 chapters of 300 characters
#   long     120 chapters of 3,000 characters
#   big    3,000 chapters of 300 characters
# Every build has the default options (-j BENCH_JOBS, loudness on).
# Figures and targets:
#   - wall time per hour of audio, short / long               <= 1.15
#   - the parent's peak memory building big (VmHWM, sampled
#     every 0.1 s)                                             <= 64 MB
#     (and, for reference, the peak of the parent and its workers,
#     /usr/bin/time %M)
#   - big: an up-to-date rerun / its build                     <= 0.01
#   - big: one sentence of chapter 1,500 edited, the build
#     that follows / its build                                 <= 0.02
#   - big: the size of index.html                              <= 512 KB
# Exit 0 all met, 1 one missed, 2 cannot run.
set -euo pipefail
export LC_ALL=C.UTF-8

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_setup "${1:-build}" 1
scale=${BENCH_SCALE:-1}
jobs=${BENCH_JOBS:-2}
[[ $scale =~ ^[0-9]*\.?[0-9]+$ ]] || die "BENCH_SCALE must be a positive number, not '$scale'"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "BENCH_JOBS must be a positive integer, not '$jobs'"
command -v jq >/dev/null || die "jq is not installed (apt-get install jq)"
command -v perl >/dev/null || die "perl is not installed"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is not installed (apt-get install time)"
chapters() { awk -v n="$1" -v s="$scale" 'BEGIN{c=int(n*s+0.5); print c<2?2:c}'; }
n_short=$(chapters 1200) n_long=$(chapters 120) n_big=$(chapters 3000)

bench_workdir webnovel 'out-*'

# make_book N CHARS FILE: N chapters of CHARS characters each, the seeds'
# lines in order from the first, a line cut where a chapter ends.
make_book() {
	perl -CSD -Mutf8 -e '
		my ($n, $chars, @seeds) = @ARGV;
		my @lines;
		for my $f (@seeds) {
			open my $h, "<:encoding(UTF-8)", $f or die "$f: $!";
			while (<$h>) { s/[\r\n]+$//; push @lines, $_ if /[^\s\x{3000}]/; }
		}
		my ($i, $rest) = (0, "");
		for my $c (1 .. $n) {
			print "第${c}章\n";
			for (my $left = $chars; $left > 0;) {
				$rest = $lines[$i++ % @lines] if $rest eq "";
				my $take = substr($rest, 0, $left);
				$rest = substr($rest, length $take);
				print "$take\n";
				$left -= length $take;
			}
		}' "$1" "$2" "${seed_files[@]}" >"$3"
}
make_book "$n_short" 300 "$work/short.txt"
make_book "$n_long" 3000 "$work/long.txt"
make_book "$n_big" 300 "$work/big.txt"

# build NAME BOOK [ARGS...]: tingshu build -j of BOOK into out-NAME; sets
# wall, cpu (user + system of all its processes), tree_kb (peak of the
# parent and its workers) and parent_kb (the parent's VmHWM, last sample).
build() {
	local name=$1 book=$2 tpid pid hwm
	shift 2
	sync
	/usr/bin/time -f '%e %U %S %M' -o "$work/time-$name" \
		"$tingshu" build -v -j"$jobs" "$@" -o "$work/out-$name" "$book" \
		>"$work/log-$name" 2>&1 &
	tpid=$!
	parent_kb=0
	pid=
	while kill -0 "$tpid" 2>/dev/null; do
		[[ -n $pid ]] || pid=$(pgrep -P "$tpid" -x tingshu | head -n1 || true)
		if [[ -n $pid ]] && hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null) &&
			[[ -n $hwm ]]; then
			parent_kb=$hwm
		fi
		sleep 0.1
	done
	wait "$tpid" || { cat "$work/log-$name" >&2; die "the build of $name failed"; }
	read -r wall user sys tree_kb <"$work/time-$name"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u + s}')
}
hours() { jq '.duration_s / 3600' "$work/out-$1/manifest.json"; }
built() { grep -c '^tingshu: \[' "$work/log-$1" || true; }

log "$(nproc) cores, -j$jobs, books of $n_short x 300, $n_long x 3000 and $n_big x 300 characters"
build short "$work/short.txt"
w_short=$wall c_short=$cpu h_short=$(hours short)
log "short: ${wall} s (CPU ${cpu} s) for $h_short h of audio"
build long "$work/long.txt"
w_long=$wall c_long=$cpu h_long=$(hours long)
log "long: ${wall} s (CPU ${cpu} s) for $h_long h of audio"
build big "$work/big.txt"
w_big=$wall c_big=$cpu p_big=$parent_kb t_big=$tree_kb
log "big: ${wall} s (CPU ${cpu} s), parent peak ${parent_kb} KB, with workers ${tree_kb} KB"
build big "$work/big.txt"
w_rerun=$wall c_rerun=$cpu
grep -q "$n_big chapters up to date" "$work/log-big" || die "the rerun of big is not up to date"
log "up-to-date rerun: ${wall} s"
mid=$(((n_big + 1) / 2))
perl -CSD -Mutf8 -i -pe "if (\$h) { \$_ = \"天亮了，雨停了，他们又上路了。\\n\"; \$h = 0 } \$h = 1 if /^第${mid}章\$/" \
	"$work/big.txt"
build big "$work/big.txt"
w_edit=$wall c_edit=$cpu
[[ $(built big) == 1 ]] || die "the edit of chapter $mid built $(built big) chapters, not 1"
log "one-sentence edit of chapter $mid: ${wall} s"
page=$(stat -c %s "$work/out-big/index.html")

per_hour() { awk -v w="$1" -v h="$2" 'BEGIN{printf "%.2f", w / h}'; }
printf '| book | chapters | audio h | wall s | CPU s | wall s per audio h |\n'
printf '| --- | ---: | ---: | ---: | ---: | ---: |\n'
printf '| short | %s | %.2f | %s | %s | %s |\n' "$n_short" "$h_short" "$w_short" "$c_short" \
	"$(per_hour "$w_short" "$h_short")"
printf '| long | %s | %.2f | %s | %s | %s |\n' "$n_long" "$h_long" "$w_long" "$c_long" \
	"$(per_hour "$w_long" "$h_long")"
printf '| big | %s | | %s | %s | |\n' "$n_big" "$w_big" "$c_big"
printf '| big, up-to-date rerun | | | %s | %s | |\n' "$w_rerun" "$c_rerun"
printf '| big, one-sentence edit | | | %s | %s | |\n' "$w_edit" "$c_edit"
echo
failed=0
check() { # WHAT VALUE LIMIT
	local v=PASS
	le "$2" "$3" || { v=FAIL; failed=1; }
	printf '%s: %s (target <= %s) %s\n' "$1" "$2" "$3" "$v"
}
check "wall per audio hour, short / long" \
	"$(ratio "$(per_hour "$w_short" "$h_short")" "$(per_hour "$w_long" "$h_long")")" 1.15
check "CPU per audio hour, short / long (for reference)" \
	"$(ratio "$(per_hour "$c_short" "$h_short")" "$(per_hour "$c_long" "$h_long")")" 1.15
check "big: the parent's peak memory, MB" "$(awk -v k="$p_big" 'BEGIN{printf "%.1f", k/1024}')" 64
echo "big: peak memory of the parent and its workers: $(awk -v k="$t_big" 'BEGIN{printf "%.1f", k/1024}') MB"
check "big: up-to-date rerun / build" "$(ratio "$w_rerun" "$w_big")" 0.01
check "big: one-sentence edit / build" "$(ratio "$w_edit" "$w_big")" 0.02
check "big: index.html, KB" "$(awk -v b="$page" 'BEGIN{printf "%.0f", b/1024}')" 512
exit "$failed"
