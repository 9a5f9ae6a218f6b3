#!/usr/bin/env bash
# compare-commits.sh: run the benchmarks of two commits and compare them with benchstat.
set -euo pipefail

usage() {
	cat <<'USAGE'
Usage: scripts/compare-commits.sh [--bench REGEX] [--pkg PKGS] [--count N]
                                  [--benchtime T] [--out DIR] A B [-- ARGS...]

Checks out commits A and B (anything git rev-parse takes: a hash, a branch,
HEAD~1) into temporary git worktrees of the repository holding the current
directory, runs `go test -run '^$' -bench REGEX -count N` in each, and prints
benchstat's comparison of B against A. Worktrees are removed afterwards.

  --bench REGEX   benchmarks to run (default: .)
  --pkg PKGS      packages (default: ./bench/)
  --count N       runs of each benchmark (default 10, as benchstat wants)
  --benchtime T   go test -benchtime (default: go test's 1s)
  --out DIR       keep the raw results there as <A>.txt and <B>.txt
                  (default: a temp dir, printed)
  -- ARGS...      passed to the benchmarks after -args
                  (e.g. -- -bench.dir /mnt/disk -bench.scale 4)

benchstat is $BENCHSTAT if set, else benchstat on PATH, else
`go tool benchstat` of this script's checkout (pinned in go.mod), else
`go run golang.org/x/perf/cmd/benchstat@latest`.
Both commits' benchmarks must build; the script stops at the first failure.
USAGE
}

bench=. pkg=./bench/ count=10 benchtime="" out=""
args=() pos=()
while (($#)); do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	--bench) bench=${2:?--bench needs a value}; shift 2 ;;
	--pkg) pkg=${2:?--pkg needs a value}; shift 2 ;;
	--count) count=${2:?--count needs a value}; shift 2 ;;
	--benchtime) benchtime=${2:?--benchtime needs a value}; shift 2 ;;
	--out) out=${2:?--out needs a value}; shift 2 ;;
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

testflags=(-run '^$' -bench "$bench" -count "$count")
[[ -n $benchtime ]] && testflags+=(-benchtime "$benchtime")
if ((${#args[@]})); then
	testflags+=(-args "${args[@]}")
fi

for side in a b; do
	if [[ $side == a ]]; then h=$ha f=$fa; else h=$hb f=$fb; fi
	git -C "$repo" worktree add --detach --quiet "$work/$side" "$h"
	echo "compare-commits.sh: $(git -C "$repo" log -1 --format='%h %s' "$h"): go test $pkg ${testflags[*]}" >&2
	(cd "$work/$side" && go test $pkg "${testflags[@]}") >"$f"
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
