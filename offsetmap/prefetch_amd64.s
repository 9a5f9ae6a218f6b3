#include "textflag.h"

// func prefetch(addr unsafe.Pointer)
//
// PREFETCHT0 asks for the cache line holding addr in every cache level. It
// is a hint: it never faults and retires without waiting for the line.
TEXT ·prefetch(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ	addr+0(FP), AX
	PREFETCHT0	(AX)
	RET
