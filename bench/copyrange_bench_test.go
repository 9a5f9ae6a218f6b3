package bench

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkCopyUnchanged asks whether copy_file_range(2) pays for batches
// the cleaner keeps unchanged. The cleaner has to read every batch into its
// buffer anyway (to filter it), so what an unchanged batch costs beyond
// that is getting its bytes into the cleaned file:
//
//   - how=write: write(2) of each 256 KiB chunk from a buffer that already
//     holds it (the cleaner's write of a verbatim batch);
//   - how=copy_file_range: copy_file_range(2) of the same chunk from the
//     source file's page cache, without the buffer (on a file system with
//     reflinks, btrfs or XFS, no bytes move; on ext4 the kernel copies
//     pages).
//
// Source 64 MiB x -bench.scale in the page cache (warm), destination a new
// file per iteration (removed outside the timer); MB/s over the bytes
// copied. Whether it pays: compare the two MB/s on the disk under test
// (-bench.dir).
func BenchmarkCopyUnchanged(b *testing.B) {
	const chunk = 256 << 10
	size := scaled(64<<20, chunk) / chunk * chunk
	dir := dataRoot(b, b)
	srcPath := filepath.Join(dir, "src.log")
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(srcPath, data, 0o644); err != nil {
		b.Fatal(err)
	}
	src, err := os.Open(srcPath)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	for _, how := range []string{"write", "copy_file_range"} {
		b.Run("how="+how+"/chunk=256KiB", func(b *testing.B) {
			b.SetBytes(size)
			for i := range b.N {
				b.StopTimer()
				dst, err := os.Create(filepath.Join(dir, "dst.log"))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				for off := int64(0); off < size; off += chunk {
					if how == "write" {
						_, err = dst.Write(data[off : off+chunk])
					} else {
						// A short copy is allowed: go on from where it stopped.
						for soff := off; soff < off+chunk && err == nil; {
							var n int
							n, err = unix.CopyFileRange(int(src.Fd()), &soff, int(dst.Fd()), nil, int(off+chunk-soff), 0)
							if err == nil && n == 0 {
								b.Fatalf("iteration %d: copy_file_range made no progress at %d", i, soff)
							}
						}
					}
					if err != nil {
						b.Fatalf("%s at %d: %v", how, off, err)
					}
				}
				b.StopTimer()
				dst.Close()
				os.Remove(dst.Name())
				b.StartTimer()
			}
		})
	}
}
