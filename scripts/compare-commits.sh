#!/usr/bin/env bash
# compare-commits.sh: run the benchmarks of two commits and compare them with benchstat.
set -euo pipefail

usage() {
	cat <<'USAGE'
Usage: scripts/compare-commits.sh [--bench REGEX] [--pkg PKGS] [--count N]
                                  [--benchtime T] [--seed S] [--out DIR]
                                  [--retry-busy N] [--thresholds T]
                                  A B [-- ARGS...]

Checks out commits A and B (anything git rev-parse takes: a hash, a branch,
HEAD~1) into temporary git worktrees of the repository holding the current
directory and runs their benchmarks in N rounds: each round runs
`go test -run '^$' -bench REGEX -count 1 -shuffle K` once for A and once
for B, in an order shuffled per round (seeded by --seed), so that drift of
the machine (heat, other load, the page cache) spreads over both commits
instead of landing on whichever ran second; -shuffle also varies the order of
the benchmarks within a package. Each commit's rounds are concatenated into
one file, and benchstat compares B against A. Worktrees are removed
afterwards.

  --bench REGEX   benchmarks to run (default: .)
  --pkg PKGS      packages (default: ./bench/)
  --count N       rounds, so runs of each benchmark (default 10, as
                  benchstat wants)
  --seed S        seed of the rounds' order (default 1; printed per round)
  --benchtime T   go test -benchtime (default: go test's 1s)
  --out DIR       keep the raw results there as <A>.txt and <B>.txt
                  (default: a temp dir, printed)
  --retry-busy N  run a commit's round again, up to N times, when it was
                  not quiet (default 0); the replaced round's results are
                  kept apart in <A>.busy.txt / <B>.busy.txt
  --thresholds T  the quiet|busy|unusable limits, as cleanerlab's
                  --interference-thresholds (default: its defaults)
  -- ARGS...      passed to the benchmarks after -args
                  (e.g. -- -bench.dir /mnt/disk -bench.scale 4)

Each commit's round runs under `cleanerlab interference` (built from this
script's checkout, or $CLEANERLAB), which measures the round's CPU time
and what else the machine did meanwhile (other processes' CPU, steal,
memory pressure) and gives it a verdict. When any round that is kept was
busy or unusable, the script prints benchstat's table but refuses to call
a difference: it says which rounds and why, and exits 3.

benchstat is $BENCHSTAT if set, else benchstat on PATH, else
`go tool benchstat` of this script's checkout (pinned in go.mod), else
`go run golang.org/x/perf/cmd/benchstat@latest`.
Both commits' benchmarks must build; the script stops at the first failure.
USAGE
}

bench=. pkg=./bench/ count=10 benchtime="" out="" seed=1 retry=0 thresholds=""
args=() pos=()
while (($#)); do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	--bench) bench=${2:?--bench needs a value}; shift 2 ;;
	--pkg) pkg=${2:?--pkg needs a value}; shift 2 ;;
	--count) count=${2:?--count needs a value}; shift 2 ;;
	--benchtime) benchtime=${2:?--benchtime needs a value}; shift 2 ;;
	--seed) seed=${2:?--seed needs a value}; shift 2 ;;
	--out) out=${2:?--out needs a value}; shift 2 ;;
	--retry-busy) retry=${2:?--retry-busy needs a value}; shift 2 ;;
	--thresholds) thresholds=${2:?--thresholds needs a value}; shift 2 ;;
	--) shift; args=("$@"); break ;;
	-*) echo "compare-commits.sh: unknown flag $1 (see --help)" >&2; exit 2 ;;
	*) pos+=("$1"); shift ;;
	esac
done
if ((${#pos[@]} != 2)); then
	echo "compare-commits.sh: want two commits A and B, got ${#pos[@]} (see --help)" >&2
	exit 2
fi
a=${pos[0]} b=${pos[1]}
if ! [[ $count =~ ^[1-9][0-9]*$ ]]; then
	echo "compare-commits.sh: --count $count: want a whole number of rounds, at least 1" >&2
	exit 2
fi
if ! [[ $retry =~ ^[0-9]+$ ]]; then
	echo "compare-commits.sh: --retry-busy $retry: want a whole number, 0 or more" >&2
	exit 2
fi
if ! [[ $seed =~ ^[0-9]+$ ]]; then
	echo "compare-commits.sh: --seed $seed: want an unsigned whole number" >&2
	exit 2
fi

repo=$(git rev-parse --show-toplevel)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
commit() {
	git -C "$repo" rev-parse --verify --quiet "$1^{commit}" ||
		{ echo "compare-commits.sh: $1 is not a commit of $repo" >&2; exit 2; }
}
ha=$(commit "$a")
hb=$(commit "$b")

work=$(mktemp -d)
cleanup() {
	for wt in "$work/a" "$work/b"; do
		[[ -d $wt ]] && git -C "$repo" worktree remove --force "$wt" >/dev/null 2>&1 || true
	done
	git -C "$repo" worktree prune >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
if [[ -z $out ]]; then
	out=$(mktemp -d)
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

# Name the result files after the commits as given: benchstat labels its
# columns with the file names.
label() { printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_'; }
fa="$out/$(label "$a").txt" fb="$out/$(label "$b").txt"
if [[ $fa == "$fb" ]]; then
	fb="$out/$(label "$b")-2.txt"
fi

for side in a b; do
	if [[ $side == a ]]; then h=$ha; else h=$hb; fi
	git -C "$repo" worktree add --detach --quiet "$work/$side" "$h"
	echo "compare-commits.sh: $side = $(git -C "$repo" log -1 --format='%h %s' "$h")" >&2
done
: >"$fa"
: >"$fb"

if [[ -n ${CLEANERLAB:-} ]]; then
	# Absolute: the rounds run inside the worktrees.
	cleanerlab=$(cd "$(dirname "$CLEANERLAB")" 2>/dev/null && pwd)/$(basename "$CLEANERLAB")
	if ! [[ -x $cleanerlab ]]; then
		echo "compare-commits.sh: CLEANERLAB=$CLEANERLAB: not an executable file" >&2
		exit 2
	fi
else
	go build -C "$here" -o "$work/cleanerlab" ./cmd/cleanerlab
	cleanerlab="$work/cleanerlab"
fi
watch=("$cleanerlab")
[[ -n $thresholds ]] && watch+=(--interference-thresholds "$thresholds")
# Check the thresholds before the first round.
"${watch[@]}" interference -- true 2>/dev/null ||
	{ echo "compare-commits.sh: --thresholds $thresholds: $("${watch[@]}" interference -- true 2>&1 | tail -1)" >&2; exit 2; }
notquiet=()

# The rounds' order: a 31-bit LCG seeded with --seed (the same seed, the
# same order).
state=$(( (seed * 1103515245 + 12345) % 2147483648 ))
for ((round = 1; round <= count; round++)); do
	state=$(( (state * 1103515245 + 12345) % 2147483648 ))
	if (( (state >> 16) & 1 )); then order=(b a); else order=(a b); fi
	shuffle=$(( (state >> 8) % 1000000 + 1 ))
	testflags=(-run '^$' -bench "$bench" -count 1 -shuffle "$shuffle")
	[[ -n $benchtime ]] && testflags+=(-benchtime "$benchtime")
	if ((${#args[@]})); then
		testflags+=(-args "${args[@]}")
	fi
	echo "compare-commits.sh: round $round/$count (seed $seed): ${order[*]}, go test $pkg ${testflags[*]}" >&2
	for side in "${order[@]}"; do
		if [[ $side == a ]]; then f=$fa; name=$a; else f=$fb; name=$b; fi
		for ((try = 0; ; try++)); do
			(cd "$work/$side" && "${watch[@]}" interference --json-out "$work/verdict.json" -- go test $pkg "${testflags[@]}") >"$work/round.txt" 2>"$work/round.err" ||
				{ cat "$work/round.err" >&2; cat "$work/round.txt"; exit 1; }
			verdict=$(sed -n 's/^interference: \([a-z]*\).*/\1/p' "$work/round.err" | tail -1)
			line=$(grep '^interference: ' "$work/round.err" | tail -1)
			grep -v '^interference: ' "$work/round.err" >&2 || true
			echo "compare-commits.sh: round $round $side ($name): $line" >&2
			if [[ $verdict == busy || $verdict == unusable ]] && ((try < retry)); then
				cat "$work/round.txt" >>"${f%.txt}.busy.txt"
				echo "compare-commits.sh: round $round $side was $verdict: running it again ($((try + 1)) of --retry-busy $retry)" >&2
				continue
			fi
			cat "$work/round.txt" >>"$f"
			if [[ $verdict == busy || $verdict == unusable ]]; then
				notquiet+=("round $round $side ($name): ${line#interference: }")
			fi
			break
		done
	done
done

if [[ -n ${BENCHSTAT:-} ]]; then
	read -r -a benchstat <<<"$BENCHSTAT"
elif command -v benchstat >/dev/null; then
	benchstat=(benchstat)
elif grep -q 'golang.org/x/perf/cmd/benchstat' "$here/go.mod" 2>/dev/null; then
	go build -C "$here" -o "$work/benchstat" golang.org/x/perf/cmd/benchstat
	benchstat=("$work/benchstat")
else
	benchstat=(go run golang.org/x/perf/cmd/benchstat@latest)
fi
echo "compare-commits.sh: results in $out" >&2
cd "$out"
"${benchstat[@]}" "$(basename "$fa")" "$(basename "$fb")"
if ((${#notquiet[@]})); then
	{
		echo
		echo "compare-commits.sh: NOT calling a difference: ${#notquiet[@]} round(s) ran on a busy machine, so the table above measures the other load as much as the commits:"
		printf '  %s\n' "${notquiet[@]}"
		echo "Run again on a quiet machine, or with --retry-busy N."
	} >&2
	exit 3
fi
