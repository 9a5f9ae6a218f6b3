#!/usr/bin/env bash
# sweep-parallel.sh: one cleanerlab sweep split over many hosts with GNU
# parallel, merged into one report.
set -euo pipefail

usage() {
	cat <<'USAGE'
Usage: scripts/sweep-parallel.sh --sshloginfile FILE --experiment FILE
                                 [--shards N] [--only I,J,...] [--out DIR]
                                 [--dir DATA_DIR] [--bin CLEANERLAB]
                                 [-- EXTRA_SWEEP_FLAGS...]

Splits the sweep of an experiment file into N shards (cleanerlab sweep
--shard i/N, i from 0) and runs them with GNU parallel over ssh, one shard
at a time per host: the cleanerlab binary and the experiment file are
copied to each host (--basefile), each shard writes its records there, the
records are brought back (--return) and removed from the host (--cleanup),
and `cleanerlab report --merge` merges them into one report.

  --sshloginfile FILE  GNU parallel's ssh login file: one host a line
                       ([user@]host, or ":" for this machine; "#" comments)
  --experiment FILE    the sweep (see scripts/experiments/)
  --shards N           number of shards (default: the hosts in FILE)
  --only I,J,...       run only these shards of N (re-run the missing ones
                       a merge names; the records go beside the others)
  --out DIR            records/shard-<i>/ and merged/ go here
                       (default runs/parallel-<UTC time>)
  --dir DATA_DIR       data directory on each host's disk under test
                       (default: a fresh temp dir per run on each host)
  --bin PATH           a cleanerlab built for the hosts (default: a static
                       build of this tree, CGO_ENABLED=0, for this OS/arch)
  -- FLAGS...          passed to every cleanerlab sweep

The merged report is DIR/merged/ (report.md, merge.json, class-<n>/ per
host class); its table is printed. A shard that fails or never comes back
is listed missing, and the script names the shards to re-run with --only.
Exit status: 0 when every shard came back complete, 1 when a shard failed or
is missing (the merge is still written), 2 on bad arguments.
USAGE
}

loginfile="" experiment="" shards="" only="" out="" dir="" bin=""
extra=()
while (($#)); do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	--sshloginfile) loginfile=${2:?--sshloginfile needs a file}; shift 2 ;;
	--experiment) experiment=${2:?--experiment needs a file}; shift 2 ;;
	--shards) shards=${2:?--shards needs a number}; shift 2 ;;
	--only) only=${2:?--only needs shard numbers}; shift 2 ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--dir) dir=${2:?--dir needs a directory}; shift 2 ;;
	--bin) bin=${2:?--bin needs a path}; shift 2 ;;
	--) shift; extra=("$@"); break ;;
	*) echo "sweep-parallel.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done

fail() { echo "sweep-parallel.sh: $*" >&2; exit 2; }
[[ -n $loginfile ]] || fail "--sshloginfile FILE is required (one host a line, \":\" for this machine)"
[[ -f $loginfile ]] || fail "--sshloginfile $loginfile: no such file"
[[ -n $experiment ]] || fail "--experiment FILE is required"
[[ -f $experiment ]] || fail "--experiment $experiment: no such file"
loginfile=$(cd "$(dirname "$loginfile")" && pwd)/$(basename "$loginfile")
command -v parallel >/dev/null || fail "GNU parallel is not installed (Debian/Ubuntu: apt-get install parallel)"
parallel --version 2>/dev/null | grep -q 'GNU parallel' || fail "$(command -v parallel) is not GNU parallel (moreutils' parallel?)"

hosts=$(grep -cvE '^[[:space:]]*(#|$)' "$loginfile" || true)
((hosts > 0)) || fail "--sshloginfile $loginfile lists no host"
shards=${shards:-$hosts}
[[ $shards =~ ^[1-9][0-9]*$ ]] || fail "--shards $shards: want a whole number, at least 1"
indexes=()
if [[ -n $only ]]; then
	# Each shard once, in decimal ("08" is not octal): two jobs of one shard
	# would write two complete records of it, which the merge refuses.
	IFS=, read -ra given <<<"$only"
	declare -A seen=()
	for i in "${given[@]}"; do
		[[ $i =~ ^[0-9]+$ ]] && ((10#$i < shards)) || fail "--only $only: $i is not a shard of 0..$((shards - 1))"
		i=$((10#$i))
		[[ -n ${seen[$i]:-} ]] && continue
		seen[$i]=1
		indexes+=("$i")
	done
else
	for ((i = 0; i < shards; i++)); do indexes+=("$i"); done
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${out:-runs/parallel-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$out/records"
out=$(cd "$out" && pwd)

# The staging directory is the jobs' working directory: here for the local
# login ":", and the same relative path under the login's home on a remote
# host, where --basefile puts the binary and the experiment.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
work="cleanerlab-sweep-$(date -u +%Y%m%d-%H%M%S)-$$"
mkdir -p "$stage/$work"
if [[ -n $bin ]]; then
	cp "$bin" "$stage/$work/cleanerlab"
else
	(cd "$root" && CGO_ENABLED=0 go build -trimpath -o "$stage/$work/cleanerlab" ./cmd/cleanerlab)
fi
cp "$experiment" "$stage/$work/experiment.yaml"

sweep=(./cleanerlab sweep --experiment experiment.yaml --shard "{}/$shards" --out "records/shard-{}" --progress never)
[[ -n $dir ]] && sweep+=(--dir "$dir")
sweep+=("${extra[@]}")
# One shell command line, each word quoted for the remote shell.
cmdline="cd $work &&"
for w in "${sweep[@]}"; do
	case "$w" in
	*"{}"*) cmdline+=" ${w}" ;; # parallel substitutes and quotes {}
	*) cmdline+=" $(printf '%q' "$w")" ;;
	esac
done

echo "sweep-parallel.sh: $(basename "$experiment"), shards ${indexes[*]} of $shards on $hosts host(s) of $loginfile"
status=0
(
	cd "$stage"
	parallel --will-cite --sshloginfile "$loginfile" -j1 \
		--basefile "$work/cleanerlab" --basefile "$work/experiment.yaml" \
		--return "$work/records/shard-{}" --cleanup \
		--tagstring 'shard {}/'"$shards" --joblog "$out/joblog-$(date -u +%Y%m%d-%H%M%S).tsv" \
		"$cmdline" ::: "${indexes[@]}"
) || status=1
# Records that came back (local jobs write them in place).
if [[ -d $stage/$work/records ]]; then
	cp -R "$stage/$work/records/." "$out/records/"
fi

rm -rf "$out/merged" # this script's own output of an earlier merge
"$stage/$work/cleanerlab" report --merge --out "$out/merged" "$out/records" | tee "$stage/merge.txt" || status=1
missing=$(sed -n 's/^missing shards: //p' "$stage/merge.txt")
if [[ -n $missing ]]; then
	only=$(echo "$missing" | sed 's#/[0-9]*##g; s/ //g')
	echo "sweep-parallel.sh: shards $missing are missing; re-run them: $0 --sshloginfile $loginfile --experiment $experiment --shards $shards --only $only --out $out" >&2
	status=1
fi
exit $status
