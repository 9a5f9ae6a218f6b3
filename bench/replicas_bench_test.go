package bench

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/lab/replicas"
	"github.com/cleanerlab/cleanerlab/replication"
)

// BenchmarkReplicasCampaign is the divergence lab's speed figure: a
// campaign of 1,000 seeded random schedules of 200 events on 3 brokers
// (the same lab function as "cleanerlab replicas campaign"), with the
// checker after each. Brokers' directories go to /dev/shm when it exists
// (a tmpfs; set CLEANERLAB_REPLICAS_DIR to measure another file system).
// Reported: s/campaign (wall), runs/s, CPU seconds (user + system, all
// threads) per campaign, and the process's peak RSS.
func BenchmarkReplicasCampaign(b *testing.B) {
	dir := os.Getenv("CLEANERLAB_REPLICAS_DIR")
	if dir == "" {
		dir = "/dev/shm"
		if _, err := os.Stat(dir); err != nil {
			dir = b.TempDir()
		}
	}
	for _, mode := range []replication.Mode{replication.Independent, replication.Coordinated} {
		b.Run("mode="+mode.String()+"/runs=1000/events=200/replicas=3", func(b *testing.B) {
			var diverged int
			var before syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &before)
			for i := 0; i < b.N; i++ {
				root, err := os.MkdirTemp(dir, "bench-replicas-")
				if err != nil {
					b.Fatal(err)
				}
				rec, err := replicas.Campaign(replicas.CampaignOptions{CampaignConfig: replication.CampaignConfig{Root: root, Mode: mode, Runs: 1000, Seed: 1, Replicas: 3, Events: 200}, NoRecord: true}, nil)
				os.RemoveAll(root)
				if err != nil {
					b.Fatal(err)
				}
				diverged = rec.Result.Diverged
				b.Logf("%s: %d of %d runs diverged, by kind %v", mode, rec.Result.Diverged, rec.Result.Runs, rec.Result.ByKind)
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/campaign")
			b.ReportMetric(1000*float64(b.N)/b.Elapsed().Seconds(), "runs/s")
			b.ReportMetric(float64(diverged), "diverged-runs")
			var ru syscall.Rusage
			if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
				b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MiB")
				cpu := time.Duration(ru.Utime.Nano()+ru.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) * time.Nanosecond
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/campaign")
			}
		})
	}
}
