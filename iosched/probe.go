package iosched

import "time"

// FileSpan is a byte range of a file that a phase is about to read.
type FileSpan struct {
	F        File
	Off, Len int64 // bytes
}

// PhaseCounters is what the kernel says one phase of a clean (building the
// offset map, or copying) did: deltas of the phase's thread's counters from
// its start to its end, and the page-cache state of its input at its start.
type PhaseCounters struct {
	// Scope is "thread" when the counters are the phase's own OS thread's
	// (/proc/thread-self; the phase ran locked to it), "threads" when
	// another thread's were added (AddThread: a goroutine reading for the
	// phase), "process" when they are the whole process's (other cleaner
	// threads included).
	Scope string
	Wall  time.Duration
	// InputBytes is the bytes of the files the phase was about to read, and
	// InputCachedBytes how many of them were in the page cache as it began
	// (cachestat(2), else mincore: ResidencyMethod).
	InputBytes       int64
	InputCachedBytes int64
	ResidencyMethod  string
	// StorageReadBytes (/proc/<thread>/io read_bytes): bytes the thread
	// caused to be read from storage: page-cache misses with their
	// readahead, and O_DIRECT reads.
	StorageReadBytes int64
	// StorageWriteBytes (write_bytes): bytes the thread dirtied for
	// write-back or wrote directly (not necessarily on disk yet).
	StorageWriteBytes int64
	// ReadCallBytes (rchar): bytes returned by read-like system calls, cache
	// hits included; an mmap reader's page faults are not counted.
	ReadCallBytes int64
	// MajorFaults: page faults that waited for storage (the mmap path's
	// cache misses); MinorFaults: those served from the page cache.
	MajorFaults int64
	MinorFaults int64
	// BlkioDelay (delayacct_blkio_ticks): time the thread waited for block
	// I/O, page faults included. Counted only when the kernel's delay
	// accounting is on (sysctl kernel.task_delayacct=1): BlkioDelayKnown.
	BlkioDelay      time.Duration
	BlkioDelayKnown bool
	// IOPressureStall (/proc/pressure/io "some" total): time in which some
	// task of the machine was stalled on I/O. System-wide.
	IOPressureStall time.Duration
	// Missing names the sources that could not be read; their fields are 0.
	Missing []string `json:",omitempty"`
}

// AddThread adds the thread counters of o, another thread's reading for
// the same phase, to p: storage and read-call bytes, faults and block I/O
// delay. The phase's wall time, its input's residency and the system-wide
// I/O pressure stay p's. Scope becomes "threads" (from "thread").
func (p *PhaseCounters) AddThread(o PhaseCounters) {
	p.StorageReadBytes += o.StorageReadBytes
	p.StorageWriteBytes += o.StorageWriteBytes
	p.ReadCallBytes += o.ReadCallBytes
	p.MajorFaults += o.MajorFaults
	p.MinorFaults += o.MinorFaults
	p.BlkioDelay += o.BlkioDelay
	if p.Scope == "thread" {
		p.Scope = "threads"
	}
	for _, m := range o.Missing {
		p.Missing = appendOnce(p.Missing, m)
	}
}

// CacheReadBytes estimates the bytes of read that came from the page cache:
// read minus StorageReadBytes, at least 0. read is what the phase read from
// its files (the reader's count). Readahead past what was read makes it an
// underestimate.
func (p PhaseCounters) CacheReadBytes(read int64) int64 { return max(0, read-p.StorageReadBytes) }

// PhaseProbe measures one phase: called as the phase begins, with the spans
// it will read, it returns the function to call as it ends. Both calls must
// come from the same goroutine (ThreadPhaseProbe locks it to its OS thread
// in between). A PhaseProbe keeps no state between phases, so one can serve
// every cleaner thread.
type PhaseProbe func(phase string, inputs []FileSpan) (end func() PhaseCounters)

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
