#!/usr/bin/env bash
# parallel-ssh.sh - every book of a job list built on other machines over
# SSH with GNU Parallel, in one of two ways:
#
#   contrib/parallel-ssh.sh shared LIST HOSTS [JOBLOG]
#       The machines share a folder (NFS, CephFS, …) that holds the books,
#       the list and the outputs at the same path everywhere, and tingshu
#       and contrib/ are installed there too.  Each machine runs
#       `tingshu-jobs run LIST N` in the folder this command runs in.
#
#   contrib/parallel-ssh.sh copy LIST HOSTS [JOBLOG]
#       No shared folder: each book's input is copied to the machine that
#       builds it (--transferfile), its output folder copied back
#       (--return) and both removed there (--cleanup, in a folder of the
#       job's own: --workdir ...).  Paths in LIST must
#       be relative (to the folder this command runs in), and each machine
#       needs tingshu installed.
#
# HOSTS is GNU Parallel's --sshloginfile: a line per machine, "CORES/HOST"
# (such as "8/builder1" or "4/user@10.0.0.7"), ":" for this machine.  Each
# book runs on one core of one machine.  JOBLOG (default LIST.joblog)
# records every job; run the same command again to run only the jobs that
# failed (--resume-failed).  Exit 75 from a job: a retry may cure it.
# Environment: SSH (the ssh command, default ssh), TINGSHU (tingshu's path
# on the machines, default: tingshu on their PATH).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mode=$1 list=$2 hosts=$3
joblog=${4:-$list.joblog}
"$here/tingshu-jobs" check "$list"
export TINGSHU=${TINGSHU:-tingshu}
common=(--sshloginfile "$hosts" --ssh "${SSH:-ssh}" --joblog "$joblog" --resume-failed
	--env TINGSHU)
case $mode in
shared)
	seq 1 "$("$here/tingshu-jobs" count "$list")" |
		parallel "${common[@]}" --workdir "$PWD" \
			"$here/tingshu-jobs" run "$list" {} -j1
	;;
copy)
	# The jobs as "INPUT<TAB>OUTPUT<TAB>OPTIONS", comments and blank lines
	# left out; uq() puts the options in unquoted, so that they are words.
	# "--workdir ..." builds each book in a folder of its own under the
	# machine's ~/.parallel/tmp/, removed with all in it after the output
	# came back.
	grep -Ev '^[[:space:]]*(#|$)' "$list" |
		parallel "${common[@]}" --colsep '\t' --workdir ... \
			--transferfile {1} --return {2} --cleanup \
			'"$TINGSHU"' build -j1 '{=3 $_ //= ""; uq() =}' -o {2} {1}
	;;
*)
	echo "parallel-ssh.sh: the mode is shared or copy, not '$mode'" >&2
	exit 2
	;;
esac
