#include "textflag.h"

// func prefetch(addr unsafe.Pointer)
//
// PRFM PLDL1KEEP asks for the cache line holding addr for a load, into L1.
// It is a hint: it never faults.
TEXT ·prefetch(SB), NOSPLIT|NOFRAME, $0-8
	MOVD	addr+0(FP), R0
	PRFM	(R0), PLDL1KEEP
	RET
