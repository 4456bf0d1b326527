# bench/lib.sh - helpers shared by the benchmarks (sourced, not run).

die() { printf 'bench: %s\n' "$*" >&2; exit 2; }
log() { printf 'bench: %s\n' "$*" >&2; }

# bench_setup BUILD_DIR DEFAULT_RUNS: sets tingshu (the binary, absolute),
# runs (BENCH_RUNS), chars (BENCH_CHARS) and seed_files (BENCH_SEEDS), or
# dies saying what is wrong.  root must be the project folder.
bench_setup() {
	local build=$1
	if [[ ! -d $build && $build != /* && -d $root/$build ]]; then
		build=$root/$build
	fi
	tingshu=$build/tingshu
	[[ -x $tingshu ]] ||
		die "no executable $tingshu; build first: cmake -S . -B build && cmake --build build -j2"
	tingshu=$(cd "$(dirname "$tingshu")" && pwd)/tingshu
	runs=${BENCH_RUNS:-$2}
	[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer, not '$runs'"
	chars=${BENCH_CHARS:-20000}
	[[ $chars =~ ^[1-9][0-9]*$ ]] || die "BENCH_CHARS must be a positive integer, not '$chars'"
	local seeds=${BENCH_SEEDS:-$root/seeds}
	shopt -s nullglob
	seed_files=("$seeds"/*.txt)
	shopt -u nullglob
	(( ${#seed_files[@]} > 0 )) || die "no seed chapters $seeds/*.txt"
}

# bench_workdir NAME [GLOB...]: a fresh folder bench/work/NAME.XXXXXX in
# work (git-ignored), removed when the script ends, after its background
# jobs are stopped; with BENCH_KEEP=1 it is kept, less what GLOB (relative
# to it) matches: the audio.  root must be the project folder.
bench_workdir() {
	mkdir -p "$root/bench/work"
	work=$(mktemp -d "$root/bench/work/$1.XXXXXX")
	shift
	bench_drop=("$@")
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
}

# shellcheck disable=SC2317  # called from the trap
bench_cleanup() {
	local -a pids=()
	local g
	mapfile -t pids < <(jobs -pr)
	if ((${#pids[@]})); then kill "${pids[@]}" 2>/dev/null || true; fi
	wait 2>/dev/null || true
	if [[ ${BENCH_KEEP:-0} == 1 ]]; then
		for g in "${bench_drop[@]}"; do
			# shellcheck disable=SC2086  # the glob is meant
			rm -rf "$work"/$g
		done
		log "work directory kept: $work"
	else
		rm -rf "$work"
	fi
}

# make_text below reads the seed chapters in seed_files.

# make_text N FILE [SKIP]: N characters (not counting line ends) of the
# seed chapters repeated line by line, starting SKIP lines in; the last
# line is cut to make the count exact.  Lines stay lines (paragraphs).
make_text() {
	local n=$1 out=$2 skip=${3:-0} total=0 line k i=0
	local -a lines=()
	local f
	for f in "${seed_files[@]}"; do
		while IFS= read -r line || [[ -n $line ]]; do
			line=${line%$'\r'}
			[[ -n ${line//[[:space:]　]/} ]] && lines+=("$line")
		done <"$f"
	done
	(( ${#lines[@]} > 0 )) || die "the seed chapters are empty"
	local nl=${#lines[@]}
	{
		while (( total < n )); do
			line=${lines[(skip + i) % nl]}
			k=${#line}
			if (( total + k > n )); then
				line=${line:0:n-total}
				k=${#line}
			fi
			printf '%s\n' "$line"
			total=$((total + k))
			i=$((i + 1))
		done
	} >"$out"
}

# time_one NAME: runs run_NAME in a fresh output folder $work/out-NAME
# and prints "WALL CPU": wall seconds and user+system CPU seconds of all
# its processes; dies with its messages, naming it by label[NAME], if it
# fails.  (bench/run.sh, bench/default.sh)
time_one() {
	local name=$1 t rc=0
	rm -rf "$work/out-$name"
	mkdir -p "$work/out-$name"
	sync
	t=$(
		TIMEFORMAT='%3R %3U %3S'
		{ time "run_$name" 2>"$work/err-$name" >/dev/null; } 2>&1
	) || rc=$?
	if ((rc)); then
		cat "$work/err-$name" >&2
		die "'${label[$name]}' failed (exit $rc)"
	fi
	awk '{printf "%.3f %.3f\n", $1, $2 + $3}' <<<"$t"
}

# median and minimum of numbers (one per argument)
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{if(NR%2)print a[(NR+1)/2]; else printf "%.3f\n",(a[NR/2]+a[NR/2+1])/2}'; }
minimum() { printf '%s\n' "$@" | sort -g | head -n1; }
maximum() { printf '%s\n' "$@" | sort -g | tail -n1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.3f", a/b}'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN{exit !(a<=b)}'; }
