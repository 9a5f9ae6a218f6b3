// Package interference measures what else the machine did while a timed
// phase ran, and judges whether the phase's figures can be trusted.
//
// A Sampler takes a Sample before and after a phase; Between turns the two
// into an Interval: this process's CPU time (user and system, from
// getrusage) and the cores it used (CPU time / wall time), the busiest of
// its threads, and the machine's interference over the same interval:
// pressure stall information (/proc/pressure/cpu, io and memory, "some" and
// "full", as the share of the interval's wall time), steal and iowait from
// /proc/stat (as shares of all CPUs' time), the CPU other processes used
// (the machine's busy time less this process's, in cores), other processes'
// disk I/O on the data directory's device (/proc/diskstats less
// /proc/self/io), and the load average at the end. Judge gives the interval a
// Verdict, Quiet, Busy or Unusable, by the Thresholds, each reason stated.
//
// Scope and limits, said wherever the figures are shown:
//   - /proc/stat counts in clock ticks (10 ms at USER_HZ 100), so an interval
//     shorter than a second has others' CPU and steal within about ±0.02
//     cores x CPUs / seconds; Interval.Note says so.
//   - Other processes' written bytes are approximate: /proc/self/io counts
//     the bytes this process dirtied, which the device may write later
//     (write-back), so they can land in another interval.
//   - PSI "some" counts this process's own waits too: a phase with more
//     runnable threads than CPUs stalls itself. The verdict therefore rests
//     on others' CPU, steal, memory pressure and others' disk I/O; the CPU
//     and I/O pressure are shown beside it.
//   - In a VM the host's other guests show only as steal.
//
// Pin restricts the process to N CPUs (sched_setaffinity on every thread,
// and GOMAXPROCS), so that a comparison can give each side the same cores.
//
// The package reads /proc through prometheus/procfs where procfs offers the
// file (stat, pressure, loadavg, diskstats, threads) and imports no other
// cleanerlab package.
package interference
