#!/usr/bin/env bash
# baseline.sh: measure the physical limits of the disk under test and of memory.
set -euo pipefail

usage() {
	cat <<'USAGE'
Usage: scripts/baseline.sh [--dir DATA_DIR] [--out DIR] [--bin CLEANERLAB]
                           [-- BASELINE_FLAGS...]

Measures what the hardware under DATA_DIR can do with `cleanerlab baseline`:
sequential O_DIRECT write and read bandwidth of the device (as fio with
direct=1, ioengine=psync), the read from a file dropped from the page cache
(drop_caches as root, else fadvise DONTNEED) and checked not cached, and one
core's memory copy bandwidth. It caches the result under DIR as
baseline-<device>.json with the time, device, mount and kernel it was
measured on, where `cleanerlab run` finds it (measuring anew when it is
stale) and reports the cleaner's throughput as a share of those limits. The
test file is 1 GiB by default: give DATA_DIR that much free space. In a
virtual machine the host may still cache the file.

  --dir DATA_DIR  a directory on the device to measure (default: the OS temp
                  dir; give the disk the cleaner will run on)
  --out DIR       where run records and the cached baseline go (default runs)
  --bin PATH      a built cleanerlab (default: go build ./cmd/cleanerlab)
  -- FLAGS...     passed to cleanerlab baseline (--file-bytes,
                  --device-cache-bytes, --block-bytes, --runs, --mem-bytes,
                  --drop-caches; see cleanerlab baseline --help)
USAGE
}

dir=${TMPDIR:-/tmp} out=runs bin=""
extra=()
while (($#)); do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	--dir) dir=${2:?--dir needs a value}; shift 2 ;;
	--out) out=${2:?--out needs a value}; shift 2 ;;
	--bin) bin=${2:?--bin needs a value}; shift 2 ;;
	--) shift; extra=("$@"); break ;;
	*) echo "baseline.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -z $bin ]]; then
	bin=$(mktemp -d)/cleanerlab
	(cd "$root" && go build -o "$bin" ./cmd/cleanerlab)
fi
"$bin" baseline --dir "$dir" --out "$out" "${extra[@]}"
