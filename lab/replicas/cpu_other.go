//go:build !unix

package replicas

import "time"

// processCPU is 0 where getrusage is not available: the speed figure is
// then left out (schedulesPerCPUMinute gives 0).
func processCPU() time.Duration { return 0 }
