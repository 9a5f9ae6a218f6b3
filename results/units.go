package results

import (
	"fmt"
	"time"
)

// MiB is 2^20 bytes: the "MB" of Kafka's cleaner log and of MBps.
const MiB = 1 << 20

// FormatBytes formats n bytes in binary units with one decimal: "512 B", "1.5 KiB",
// "256.0 MiB", "2.0 GiB". Negative values (deltas) keep their sign.
func FormatBytes(n int64) string {
	sign := ""
	u := uint64(n)
	if n < 0 {
		sign = "-"
		u = uint64(-n) // -MinInt64 wraps to itself, and uint64 of it is 2^63: still right
	}
	if u < 1024 {
		return fmt.Sprintf("%s%d B", sign, u)
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v := float64(u) / 1024
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%s%.1f %s", sign, v, units[i])
}

// MBps is bytes per second in MB/s with MB = 2^20 bytes, as Kafka's cleaner log
// prints it ("Mb/sec"). It returns 0 when d <= 0, since no rate was measured.
func MBps(bytes int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / MiB / d.Seconds()
}
