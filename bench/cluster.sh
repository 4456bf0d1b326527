#!/usr/bin/env bash
# bench/cluster.sh - the throughput of a job list built with
# contrib/parallel-ssh.sh (shared folder) on one "machine" and on two: SSH
# logins to this host (127.0.0.1, then 127.0.0.1 and localhost), one core
# each, through an sshd of the benchmark's own (tests/cluster/sshd.sh).
# BENCH_BOOKS books (default 8) of BENCH_CHARS characters each (default
# 4000), made from the seeds, in WAV; each layout BENCH_RUNS times (default
# 1), every book built from scratch each time.
#
# Usage: bench/cluster.sh [BUILD_DIR]      (default BUILD_DIR: build)
#
# Prints per layout: machines, books, characters, wall seconds (median),
# books an hour, characters a second, characters a second per core, and
# the speed-up over one machine.  Needs GNU Parallel, sshd, ssh, python3.
set -euo pipefail
export LC_ALL=C.UTF-8

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
BENCH_CHARS=${BENCH_CHARS:-4000}
bench_setup "${1:-build}" 1
nbooks=${BENCH_BOOKS:-8}
[[ $nbooks =~ ^[1-9][0-9]*$ ]] || die "BENCH_BOOKS must be a positive integer, not '$nbooks'"
for p in parallel ssh ssh-keygen python3; do command -v "$p" >/dev/null || die "needs $p"; done
bench_workdir cluster '*/out/*'
# shellcheck source=tests/cluster/sshd.sh
. "$root/tests/cluster/sshd.sh"
start_sshd "$work/ssh" || die "our sshd did not start"
trap 'stop_sshd; bench_cleanup' EXIT
export SSH TINGSHU=$tingshu

cd "$work"
mkdir -p books
: >books.tsv
for ((i = 1; i <= nbooks; i++)); do
	make_text "$chars" "books/$i.txt" $((i * 7))
	printf 'books/%d.txt\tout/%d\n' "$i" "$i" >>books.tsv
done
printf '1/127.0.0.1\n' >hosts1
printf '1/127.0.0.1\n1/localhost\n' >hosts2

printf '%s\n' "machines | books | characters | wall s | books/hour | chars/s | chars/s per core | speed-up"
one=
for m in 1 2; do
	walls=()
	for ((r = 0; r < runs; r++)); do
		rm -rf out joblog
		t0=$(date +%s.%N)
		"$root/contrib/parallel-ssh.sh" shared books.tsv "hosts$m" joblog >/dev/null 2>run.err ||
			die "the build on $m machines failed: $(tail -3 run.err)"
		walls+=("$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')")
	done
	w=$(median "${walls[@]}")
	total=$((nbooks * chars))
	[ -n "$one" ] || one=$w
	awk -v m="$m" -v n="$nbooks" -v c="$total" -v w="$w" -v one="$one" 'BEGIN {
		printf "%d | %d | %d | %.2f | %.0f | %.0f | %.0f | %.2f\n",
			m, n, c, w, n * 3600 / w, c / w, c / w / m, one / w }'
done
