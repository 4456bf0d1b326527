#!/usr/bin/env bash
# parallel-local.sh - every book of a job list built on this machine with
# GNU Parallel, a book per core (each book on one core: many books keep
# all cores busy better than one book on all of them).
#
# Usage: contrib/parallel-local.sh LIST [JOBLOG]
#
# JOBLOG (default LIST.joblog) records each job's exit status.  Run the
# same command again after a failure: --resume-failed runs the jobs that
# failed or never ran, and only those (a book rerun after being killed
# picks up where it stopped; a finished book is not run again).  Exit 75
# from a job means a retry may cure it (a full disk, memory).
# Environment: TINGSHU (default: tingshu on PATH), JOBS (books at once,
# default: the number of cores).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
list=$1
joblog=${2:-$list.joblog}
"$here/tingshu-jobs" check "$list"
seq 1 "$("$here/tingshu-jobs" count "$list")" |
	parallel --jobs "${JOBS:-$(nproc)}" --joblog "$joblog" --resume-failed \
		"$here/tingshu-jobs" run "$list" {} -j1
