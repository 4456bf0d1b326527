#!/usr/bin/env bash
# slurm.sh - the Slurm recipes of contrib/ on a one-node Slurm cluster made
# on this machine: its own munged (own key), slurmctld and slurmd, every
# file of theirs in the scratch folder, on free ports, stopped at the end.
#
#   bash slurm.sh TINGSHU SRC_DIR SCRATCH_DIR
#
# Checks:
#   - contrib/slurm-array.sbatch builds a job list of three small books
#     (--array=1-3%2), one task retrying after a first exit 75, and each
#     book is byte for byte the one a local `tingshu build` makes;
#   - contrib/slurm-shard.sbatch builds a book of six chapters over three
#     array tasks (--shard I/3), then a job depending on them (afterok)
#     puts it together; byte for byte the local build.
# Skips (exit 77) without root or without munged, slurmctld, slurmd,
# sbatch, sinfo, squeue, scontrol or scancel; with CI set (as .ci/run sets it) a missing
# program is a failure.  Prints "ok: ..." and "FAIL: ..." lines; exit 1 if
# a check failed.
set -u
export LC_ALL=C.UTF-8
unset TINGSHU_VOICES TINGSHU_JOBS

FAILS=0
fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
pass() { echo "ok: $*"; }
die() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

[ $# -eq 3 ] || { echo "usage: $0 TINGSHU SRC_DIR SCRATCH_DIR" >&2; exit 2; }
TINGSHU=$(realpath "$1")
SRC=$(realpath "$2")
SCRATCH=$(realpath -m "$3")
[ -x "$TINGSHU" ] || die "tingshu binary $TINGSHU is missing or not executable"
for f in tingshu-jobs slurm-array.sbatch slurm-shard.sbatch; do
	[ -f "$SRC/contrib/$f" ] || die "$SRC/contrib/$f is missing"
done
case $SCRATCH in
*/cluster*) ;;
*) die "refusing to use $SCRATCH as scratch dir (expected a path with /cluster in it)" ;;
esac

[ "$(id -u)" -eq 0 ] || skip "Slurm daemons need root (SlurmUser=root here)"
PATH=$PATH:/usr/sbin:/sbin
for p in munged slurmctld slurmd sbatch sinfo squeue scontrol scancel; do
	command -v "$p" >/dev/null && continue
	[ -n "${CI:-}" ] && die "$p is not installed (under CI, Slurm and munge must be: scripts/setup-debian.sh --test)"
	skip "$p is not installed (Debian: apt-get install slurm-wlm munge)"
done

# A run killed before its cleanup (a ctest timeout) may have left daemons:
# stop those whose command line names this scratch folder, then start anew.
for f in "$SCRATCH"/pid/*.pid; do
	[ -f "$f" ] || continue
	pid=$(cat "$f")
	grep -qF -- "$SCRATCH" "/proc/$pid/cmdline" 2>/dev/null && kill -KILL "$pid"
done
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH" || die "cannot make scratch dir $SCRATCH"
cd "$SCRATCH" || die "cannot cd to $SCRATCH"
mkdir -p pid log logs books state

# Unix sockets (munged's, slurmd's in its spool) need a short path.
RUN=$SCRATCH/run
TMPRUN=
if [ ${#RUN} -gt 70 ]; then
	TMPRUN=$(mktemp -d /tmp/tingshu-slurm.XXXXXX) || die "cannot make a folder in /tmp"
	RUN=$TMPRUN
fi
mkdir -p "$RUN/spool"

# ---- the daemons -------------------------------------------------------
PIDS=()   # in the order started; stopped in reverse
# shellcheck disable=SC2317  # called by the trap
cleanup() {
	local i pid n
	trap - EXIT INT TERM
	# Jobs still there (after a failure): cancel them, so that no
	# slurmstepd outlives its slurmd.
	if [ ${#PIDS[@]} -ge 2 ] && alive "${PIDS[1]}" &&
		[ -n "$(timeout 5 squeue -h -o %A 2>/dev/null)" ]; then
		timeout 5 scancel --quiet --full --partition=books >/dev/null 2>&1
		for ((n = 0; n < 50; n++)); do
			[ -z "$(timeout 5 squeue -h -o %A 2>/dev/null)" ] && break
			sleep 0.1
		done
	fi
	for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
		pid=${PIDS[i]}
		kill -TERM "$pid" 2>/dev/null
		for ((n = 0; n < 100; n++)); do
			alive "$pid" || break
			sleep 0.1
		done
		alive "$pid" && kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	[ -n "$TMPRUN" ] && rm -rf "$TMPRUN"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# alive PID: running (a child that exited is a zombie until waited for).
alive() {
	local s
	s=$(ps -o stat= -p "$1" 2>/dev/null) && [ "${s:0:1}" != Z ]
}

# start NAME CMD...: CMD in the background, output to log/NAME.out.
start() {
	local name=$1
	shift
	"$@" >"log/$name.out" 2>&1 &
	PIDS+=($!)
	echo $! >"pid/$name.pid"
}

# The tails of the daemons' logs, after a failure to start or to run jobs.
# (NAME.out, the daemon's output, only when its NAME.log is empty.)
show_logs() {
	local f
	for f in log/*; do
		[ -s "$f" ] || continue
		[ "${f%.out}" != "$f" ] && [ -s "${f%.out}.log" ] && continue
		echo "  --- $f:" >&2
		tail -n 15 "$f" | sed 's/^/  | /' >&2
	done
}

# Two free TCP ports: bound to port 0 (the kernel picks) at the same time.
ports=$(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))' 2>/dev/null) ||
	ports="$((20000 + RANDOM % 20000)) $((40000 + RANDOM % 20000))"
read -r CTLD_PORT SLURMD_PORT <<<"$ports"

dd if=/dev/urandom of="$RUN/munge.key" bs=1024 count=1 status=none || die "cannot write a munge key"
chmod 0400 "$RUN/munge.key"
MUNGE_SOCKET=$RUN/munge.socket
start munged munged --foreground --force \
	--key-file="$RUN/munge.key" --socket="$MUNGE_SOCKET" \
	--pid-file="$SCRATCH/pid/munged.daemon.pid" --log-file="$SCRATCH/log/munged.log" \
	--seed-file="$RUN/munge.seed"
for ((n = 0; n < 50; n++)); do
	[ -S "$MUNGE_SOCKET" ] && break
	alive "${PIDS[0]}" || break
	sleep 0.1
done
[ -S "$MUNGE_SOCKET" ] || { show_logs; die "munged did not start (no socket $MUNGE_SOCKET)"; }

NODE=tsnode
# Slurm 22.05: SlurmctldHost=localhost is accepted whatever the host is
# called; config_overrides takes CPUs=2 whatever the machine has (else a
# node with fewer is drained); AuthInfo's socket serves cred/munge too.
cat >slurm.conf <<EOF
ClusterName=tingshu-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$SCRATCH/state
SlurmdSpoolDir=$RUN/spool
SlurmctldPidFile=$SCRATCH/pid/slurmctld.daemon.pid
SlurmdPidFile=$SCRATCH/pid/slurmd.daemon.pid
SlurmctldLogFile=$SCRATCH/log/slurmctld.log
SlurmdLogFile=$SCRATCH/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
NodeName=$NODE NodeHostname=$(hostname) NodeAddr=127.0.0.1 CPUs=2 RealMemory=500 State=UNKNOWN
PartitionName=books Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$SCRATCH/slurm.conf

start slurmctld slurmctld -D -f "$SLURM_CONF"
start slurmd slurmd -D -f "$SLURM_CONF" -N "$NODE"
state=
for ((n = 0; n < 150; n++)); do
	state=$(sinfo -h -n "$NODE" -o %T 2>/dev/null)
	[ "$state" = idle ] && break
	if ! alive "${PIDS[1]}" || ! alive "${PIDS[2]}"; then
		break
	fi
	sleep 0.2
done
if [ "$state" != idle ]; then
	show_logs
	die "the Slurm node is not idle after 30 s (state '$state')"
fi
pass "munged, slurmctld and slurmd up (ports $CTLD_PORT, $SLURMD_PORT)"

# ---- books ---------------------------------------------------------------
cat >books/a.txt <<'EOF'
第一章 春天
春天来了，花都开了。小鸟在树上唱歌。
第二章 夏天
夏天很热。我们去河边游泳，晚上看星星。
EOF
cat >books/b.txt <<'EOF'
第一章 出门
老王一早就出了门。他要去城里买一本书。
第二章 回家
天黑的时候，他回到了家。书很好看，他读到半夜。
EOF
cat >books/c.txt <<'EOF'
第一章 山上
山上有一座小庙。庙里住着一个老和尚。
第二章 山下
山下有一条小河。河水很清，鱼儿游来游去。
EOF
: >books/long.txt
for i in 一 二 三 四 五 六; do
	printf '第%s章 第%s天\n这是第%s天。我们走了很远的路，看见了很多东西。\n' "$i" "$i" "$i" >>books/long.txt
done
# Relative paths: the tasks run in the folder sbatch ran in (this one).
printf '# three books\nbooks/a.txt\tslurm/a\nbooks/b.txt\tslurm/b\t-q\n\nbooks/c.txt\tslurm/c\t--timing srt,json\n' >books.tsv

# local NAME INPUT OPTIONS...: the reference build, in local/NAME.
local_build() {
	local name=$1 input=$2
	shift 2
	"$TINGSHU" build -j1 "$@" -o "local/$name" "$input" >"logs/local-$name.out" 2>&1 ||
		fail "local build of $input failed: $(tail -n 3 "logs/local-$name.out")"
}
local_build a books/a.txt
local_build b books/b.txt
local_build c books/c.txt --timing srt,json
local_build long books/long.txt

# same NAME: slurm/NAME is byte for byte local/NAME (the state folder
# .tingshu too: nothing in it depends on the machine or the time).
same() {
	if [ ! -f "slurm/$1/manifest.json" ]; then
		fail "$2: slurm/$1 has no manifest.json"
	elif diff -r "slurm/$1" "local/$1" >"logs/diff-$1.txt" 2>&1; then
		pass "$2: slurm/$1 is identical to the local build"
	else
		fail "$2: slurm/$1 differs from the local build:"
		head -n 20 "logs/diff-$1.txt" | sed 's/^/  | /' >&2
	fi
}

# tasks_ok JOBID N LABEL: scontrol knows N tasks of JOBID, all COMPLETED
# with exit 0 (no accounting here, so no sacct; the records stay 300 s).
tasks_ok() {
	local info n
	info=$(scontrol -o show job "$1" 2>&1)
	n=$(grep -c 'JobState=COMPLETED .*ExitCode=0:0' <<<"$info")
	if [ "$n" -eq "$2" ]; then
		pass "$3: $2 task(s) completed with exit 0 (job $1)"
	else
		fail "$3: $n of $2 task(s) completed with exit 0 (job $1):"
		awk '{ s = "  |"; for (i = 1; i <= NF; i++)
			if ($i ~ /^(JobId|ArrayTaskId|JobState|Reason|ExitCode)=/) s = s " " $i
			print s }' <<<"$info" >&2
	fi
}

# has FILE STRING LABEL: FILE (a task's output) contains STRING.
has() {
	if grep -qF -- "$2" "$1" 2>/dev/null; then
		pass "$3"
	else
		fail "$3: $1 lacks '$2':"
		sed 's/^/  | /' "$1" >&2 2>/dev/null
	fi
}

# ---- contrib/slurm-array.sbatch -------------------------------------------
# TINGSHU fails book b once with exit 75 (as a full disk would): the task
# tries again.  TINGSHU_JOBS is not set: the recipe finds tingshu-jobs
# beside itself, though Slurm runs a copy of it from its spool folder.
cat >flaky-tingshu <<EOF
#!/bin/bash
case " \$* " in
*" books/b.txt "*)
	if mkdir "$SCRATCH/flaky.once" 2>/dev/null; then
		echo "flaky-tingshu: failing with 75 once" >&2
		exit 75
	fi ;;
esac
exec "$TINGSHU" "\$@"
EOF
chmod +x flaky-tingshu

jid=$(TINGSHU=$SCRATCH/flaky-tingshu TINGSHU_RETRY_DELAY=1 timeout 60 \
	sbatch --parsable --wait --array=1-3%2 --output="logs/array-%A_%a.out" \
	"$SRC/contrib/slurm-array.sbatch" books.tsv 2>logs/array-sbatch.err)
rc=$?
if [ "$rc" -eq 0 ]; then
	pass "array: sbatch --wait --array=1-3%2 slurm-array.sbatch exited 0 (job $jid)"
else
	fail "array: sbatch --wait exited $rc (job $jid): $(cat logs/array-sbatch.err)"
	squeue >&2
fi
if [ -n "$jid" ]; then
	tasks_ok "$jid" 3 array
	if scontrol -o show job "$jid" | grep -q 'ArrayTaskThrottle=2 '; then
		pass "array: at most 2 tasks at once (%2)"
	else
		fail "array: the job has no ArrayTaskThrottle=2"
	fi
	has "logs/array-${jid}_1.out" "into slurm/a" "array: task 1 built book a"
	has "logs/array-${jid}_2.out" "exit 75 (try 1 of 3)" "array: task 2 retried after exit 75"
	has "logs/array-${jid}_3.out" "into slurm/c" "array: task 3 built book c"
fi
same a array
same b array
same c array

# ---- contrib/slurm-shard.sbatch ---------------------------------------------
# The tasks write Slurm's default slurm-%A_%a.out here; the last job too.
export TINGSHU
jid=$(timeout 20 sbatch --parsable --array=1-3 \
	"$SRC/contrib/slurm-shard.sbatch" -o slurm/long books/long.txt 2>logs/shard-sbatch.err) ||
	fail "shard: sbatch --array=1-3 failed: $(cat logs/shard-sbatch.err)"
if [ -n "$jid" ]; then
	jid2=$(timeout 60 sbatch --parsable --wait --dependency=afterok:"$jid" --kill-on-invalid-dep=yes \
		"$SRC/contrib/slurm-shard.sbatch" -o slurm/long books/long.txt 2>logs/assemble-sbatch.err)
	rc=$?
	# sbatch --wait also returns 0 for a job cancelled before it ran (its
	# dependency failed): scontrol tells.
	if [ "$rc" -ne 0 ]; then
		fail "shard: sbatch --wait of the last job exited $rc: $(cat logs/assemble-sbatch.err)"
		squeue >&2
	fi
	tasks_ok "$jid" 3 shard
	[ -n "$jid2" ] && tasks_ok "$jid2" 1 "shard: the job after the array (afterok:$jid)"
	for i in 1 2 3; do
		has "slurm-${jid}_$i.out" "built 2 of 6 chapters" "shard: task $i built its 2 of 6 chapters"
	done
	has "slurm-$jid2.out" "6 chapters up to date" "shard: the last job had nothing left to build"
fi
same long shard

if [ "$FAILS" -ne 0 ]; then
	show_logs
	echo "$FAILS check(s) failed" >&2
	exit 1
fi
echo "all checks passed"
exit 0
