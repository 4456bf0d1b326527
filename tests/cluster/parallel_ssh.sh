#!/bin/bash
# cluster_parallel_ssh: contrib/parallel-ssh.sh and parallel-local.sh run
# for real.  The test starts its own sshd on a free port of 127.0.0.1 with
# throwaway keys and configuration in its scratch folder; two "machines"
# (127.0.0.1 and localhost, a core each) build a job list of three small
# books, one of whose inputs is missing.  Checked: the joblog (two jobs exit
# 0, one exit 1), the outputs byte-identical to local builds; then the
# input is put there and the same command, --resume-failed, runs that job
# only.  Then the same books without a shared folder (copy mode: inputs
# sent, outputs returned, both removed on the "remote" side, which works
# in the user's ~/.parallel/tmp/), and the local recipe.  Every process it started is stopped.
#
# Usage: bash parallel_ssh.sh TINGSHU SRC_DIR SCRATCH_DIR
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
export LC_ALL=C.UTF-8
unset TINGSHU_VOICES
TINGSHU=$(realpath "$1")
SRC=$(realpath "$2")
SCRATCH=$3
FAILS=0
fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
pass() { echo "ok: $*"; }
die() { echo "FAIL: $*" >&2; exit 1; }
skip() {
	# Under CI the programs are installed (scripts/setup-debian.sh --test):
	# one missing there is a failure, elsewhere a skip.
	[ -n "${CI:-}" ] && die "$* (CI installs it: scripts/setup-debian.sh --test)"
	echo "SKIP: $*"
	exit 77
}
for p in parallel sshd ssh ssh-keygen rsync; do
	command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] || skip "$p is not installed"
done
case $SCRATCH in */cluster*) ;; *) die "refusing to use $SCRATCH as the scratch folder" ;; esac
rm -rf "$SCRATCH" && mkdir -p "$SCRATCH" && SCRATCH=$(realpath "$SCRATCH") && cd "$SCRATCH" ||
	die "cannot make $SCRATCH"

# --- sshd of our own -------------------------------------------------------
. "$HERE/sshd.sh"
trap stop_sshd EXIT
start_sshd ssh || die "our sshd did not start"
export SSH
printf '1/127.0.0.1\n1/localhost\n' >hosts
pass "our sshd takes the throwaway key"

# --- three small books and a job list --------------------------------------
mkdir -p books
book() { # NAME WORD: two chapters
	{
		echo "第一章 $2"
		echo "清晨，$2的雾慢慢散开。他走到河边，看见一条小船。"
		echo "第二章 回家"
		echo "傍晚，他沿着$2回到家里，母亲已经做好了饭。"
	} >"books/$1.txt"
}
book a 山路
book b 河岸
book c 竹林
mv books/b.txt books/b.later # the missing input
{
	echo '# three books: input, output folder, options'
	echo
	printf 'books/a.txt\tout/a\n'
	printf 'books/b.txt\tout/b\t--rate 1.1\n'
	printf 'books/c.txt\tout/c\t--format flac --quality 3\n'
} >books.tsv
for x in a c; do
	"$TINGSHU" build -q -j1 -o "local/$x" "books/$x.txt" $([ $x = c ] && echo --format flac --quality 3) ||
		die "the local build of $x failed"
done

same() { # LABEL DIR_A DIR_B
	local d
	if d=$(diff -r "$2" "$3" 2>&1); then pass "$1: byte-identical to the local build"; else
		fail "$1: differs from the local build: $(head -c 400 <<<"$d")"
	fi
}

# --- shared folder: one job fails, then --resume-failed --------------------
export TINGSHU
rc=0
"$SRC/contrib/parallel-ssh.sh" shared books.tsv hosts joblog >shared.out 2>shared.err || rc=$?
[ "$rc" = 1 ] || fail "shared: exit $rc, not 1 (one job failed): $(tail -3 shared.err)"
exits=$(awk -F'\t' 'NR > 1 { print $7 }' joblog | sort | tr '\n' ' ')
[ "$exits" = "0 0 1 " ] || fail "shared: the joblog's exit values are '$exits', not '0 0 1 '"
grep -q 'books/b.txt: no such file' shared.err || fail "shared: no message naming the missing input: $(head -3 shared.err)"
grep -q '^tingshu: built 2 of 2 chapters (.*) in .* into out/a$' shared.err ||
	fail "shared: no summary line for out/a in the log: $(grep tingshu: shared.err | head -3)"
same "shared a" out/a local/a
same "shared c" out/c local/c
[ -e out/b/manifest.json ] && fail "shared: the failed book has a manifest"
mv books/b.later books/b.txt
lines=$(wc -l <joblog)
rc=0
"$SRC/contrib/parallel-ssh.sh" shared books.tsv hosts joblog >resume.out 2>resume.err || rc=$?
[ "$rc" = 0 ] || fail "resume: exit $rc: $(tail -3 resume.err)"
[ "$(wc -l <joblog)" = $((lines + 1)) ] || fail "resume: $(($(wc -l <joblog) - lines)) jobs ran, not 1"
[ "$(tail -n 1 joblog | cut -f7,9)" = $'0\t'"$SRC/contrib/tingshu-jobs run books.tsv 2 -j1" ] ||
	fail "resume: the job run was not job 2: $(tail -n 1 joblog)"
mkdir -p local2 && "$TINGSHU" build -q -j1 --rate 1.1 -o local2/b books/b.txt || die "local b again"
same "resumed b" out/b local2/b
pass "shared folder: a failed input, then --resume-failed runs that book only"

# A finished book's rerun: exit 0 at once, "up to date".
rc=0
"$SRC/contrib/tingshu-jobs" run books.tsv 1 >rerun.out 2>rerun.err || rc=$?
[ "$rc" = 0 ] && grep -q '^tingshu: 2 chapters up to date in out/a$' rerun.err ||
	fail "rerun of a finished book: exit $rc, $(cat rerun.err)"

# --- no shared folder: copy in, build, copy back --------------------------
mkdir -p copy/books
cp books/*.txt copy/books/
sed 's|out/|cout/|' books.tsv >copy/books.tsv
# The "remote" side builds each book under ~/.parallel/tmp/ of the user
# (ours: the same machine), in a folder removed after its output is back.
before=$(ls -A ~/.parallel/tmp 2>/dev/null | grep -vx sshlogin | sort) # sshlogin: its cache
(cd copy && "$SRC/contrib/parallel-ssh.sh" copy books.tsv ../hosts joblog >copy.out 2>copy.err) ||
	fail "copy: exit $?: $(tail -3 copy/copy.err)"
for x in a b c; do
	[ -d "copy/cout/$x" ] || { fail "copy: cout/$x was not returned"; continue; }
	same "copy $x" "copy/cout/$x" "$([ $x = b ] && echo local2/b || echo "local/$x")"
done
after=$(ls -A ~/.parallel/tmp 2>/dev/null | grep -vx sshlogin | sort)
[ "$before" = "$after" ] ||
	fail "copy: left on the remote side, in ~/.parallel/tmp: $(comm -13 <(echo "$before") <(echo "$after") | head -3)"
pass "no shared folder: inputs sent, outputs returned, nothing left behind"

# --- this machine alone ----------------------------------------------------
sed 's|out/|lout/|' books.tsv >local.tsv
JOBS=2 "$SRC/contrib/parallel-local.sh" local.tsv local.joblog >l.out 2>l.err || fail "local: exit $?: $(tail -3 l.err)"
for x in a c; do same "local recipe $x" "lout/$x" "local/$x"; done

[ "$FAILS" = 0 ] || { echo "$FAILS check(s) failed" >&2; exit 1; }
echo "all checks passed"
