#!/usr/bin/env bash
# sweep.sh: example parameter sweeps of cleanerlab on this machine.
set -euo pipefail

usage() {
	cat <<'USAGE'
Usage: scripts/sweep.sh [--scale tiny|small|full] [--out DIR] [--dir DATA_DIR]
                        [--count N] [--bin CLEANERLAB] [-- EXTRA_SWEEP_FLAGS...]

Runs example sweeps with `cleanerlab sweep` over key cardinality x dirty
ratio x segment size x hasher x I/O path, and renders one report over all of
them with `cleanerlab report`.

  --scale tiny    seconds: 2 key counts x 2 hashers, 1 MiB logs (a smoke test)
  --scale small   minutes (the default): 32 MiB logs,
                  keys 1e5,1e6 x dirty 0.8,0.95 x segment.bytes 4MiB,16MiB
                  x hasher md5,xxh3-128 x io pread,mmap
  --scale full    hours: 1 GiB logs, keys 1e6,1e7 x dirty 0.5,0.8
                  x segment.bytes 64MiB,1GiB x hasher md5,xxh3-128,xxh3-64
                  x offset-map skimpy,bucket16 x io pread,mmap,direct
  --out DIR       where the sweep records go (default runs)
  --dir DATA_DIR  data directory on the disk under test (default: temp dirs)
  --count N       repetitions of each point (default 3; 10 for benchstat)
  --bin PATH      a built cleanerlab (default: go build ./cmd/cleanerlab)
  -- FLAGS...     passed to every cleanerlab sweep (e.g. -- --cache cold)

The clean base of a generated log holds each key at most once, so a small
key count needs a small log or a high dirty ratio; the scales respect that.
Exit status: that of the first sweep or report that fails.
USAGE
}

scale=small out=runs dir="" count=3 bin=""
extra=()
while (($#)); do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	--scale) scale=${2:?--scale needs a value}; shift 2 ;;
	--out) out=${2:?--out needs a value}; shift 2 ;;
	--dir) dir=${2:?--dir needs a value}; shift 2 ;;
	--count) count=${2:?--count needs a value}; shift 2 ;;
	--bin) bin=${2:?--bin needs a value}; shift 2 ;;
	--) shift; extra=("$@"); break ;;
	*) echo "sweep.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -z $bin ]]; then
	bin=$(mktemp -d)/cleanerlab
	(cd "$root" && go build -o "$bin" ./cmd/cleanerlab)
fi

common=(--out "$out" --count "$count" --progress never)
[[ -n $dir ]] && common+=(--dir "$dir")

before=$(mktemp)
trap 'rm -f "$before"' EXIT
ls -1d "$out"/sweep-* 2>/dev/null | sort >"$before" || true

case "$scale" in
tiny)
	"$bin" sweep --experiment "$root/scripts/experiments/tiny.yaml" "${common[@]}" "${extra[@]}"
	;;
small)
	"$bin" sweep "${common[@]}" --log-bytes 32MiB --keys 1e5,1e6 --dirty-ratio 0.8,0.95 \
		--segment.bytes 4MiB,16MiB --hasher md5,xxh3-128 --io pread,mmap "${extra[@]}"
	;;
full)
	"$bin" sweep "${common[@]}" --log-bytes 1GiB --keys 1e6,1e7 --dirty-ratio 0.5,0.8 \
		--segment.bytes 64MiB,1GiB --hasher md5,xxh3-128,xxh3-64 --offset-map skimpy,bucket16 \
		--io pread,mmap,direct "${extra[@]}"
	;;
*)
	echo "sweep.sh: --scale $scale: want tiny, small or full" >&2
	exit 2
	;;
esac

new=()
while IFS= read -r d; do new+=("$d"); done < <(comm -13 "$before" <(ls -1d "$out"/sweep-* | sort))
if ((${#new[@]} == 0)); then
	echo "sweep.sh: no sweep directory appeared under $out" >&2
	exit 1
fi
"$bin" report --out "$out/report-$(date -u +%Y%m%d-%H%M%S)" "${new[@]}"
