package offsetmap

import (
	"math"
	"testing"
)

// TestPassWindow walks the stamp window through passes by hand.
func TestPassWindow(t *testing.T) {
	w := newPassWindow()
	if !w.fits(0) || !w.fits(math.MaxInt64) || w.fits(-1) {
		t.Errorf("fresh window: fits(0) %v fits(MaxInt64) %v fits(-1) %v, want true true false", w.fits(0), w.fits(math.MaxInt64), w.fits(-1))
	}
	// Pass 1: base 100 gets stamp 1 (lo), 105 stamp 6.
	if v := w.stamp(100); v != 1 || w.base != 100 {
		t.Fatalf("stamp(100) = %d, base %d; want 1, 100", v, w.base)
	}
	if v := w.stamp(105); v != 6 || w.offset(6) != 105 || w.hi != 6 {
		t.Fatalf("stamp(105) = %d, offset(6) = %d, hi %d; want 6 105 6", v, w.offset(6), w.hi)
	}
	if v := w.stamp(102); v != 3 || w.hi != 6 {
		t.Errorf("stamp(102) = %d, hi %d; want 3 6 (hi keeps the largest)", v, w.hi)
	}
	// With lo = 1 the last stamp is MaxUint32: base + MaxUint32 - 1.
	if w.fits(99) || !w.fits(100+math.MaxUint32-1) || w.fits(100+math.MaxUint32) {
		t.Errorf("base 100, lo 1: fits(99) %v fits(base+2^32-2) %v fits(base+2^32-1) %v; want false true false",
			w.fits(99), w.fits(100+math.MaxUint32-1), w.fits(100+math.MaxUint32))
	}
	// Pass 2 starts after stamp 6: lo 7, any base.
	if w.next() {
		t.Fatal("next() asked for a zero-fill after 6 stamps")
	}
	if w.lo != 7 || w.hi != 6 || w.base != -1 || !w.fits(0) {
		t.Fatalf("after next: lo %d hi %d base %d fits(0) %v; want 7 6 -1 true", w.lo, w.hi, w.base, w.fits(0))
	}
	if v := w.stamp(50); v != 7 || w.offset(7) != 50 {
		t.Errorf("pass 2 stamp(50) = %d, offset(7) = %d; want 7 50", v, w.offset(7))
	}
	// A pass with no Put leaves lo where it was.
	w.next()
	if w.lo != 8 || !func() bool { w.next(); return w.lo == 8 }() {
		t.Errorf("empty pass moved lo to %d, want 8", w.lo)
	}

	// Exhaustion: exactly minPassSpan stamps left above the next lo is
	// enough; one fewer forces a zero-fill and a restart at lo = 1.
	w = passWindow{lo: 1, hi: math.MaxUint32 - minPassSpan - 1, base: 0}
	if w.next() || w.lo != math.MaxUint32-minPassSpan {
		t.Errorf("span of exactly 2^31 left: zero-fill or lo %d", w.lo)
	}
	w.stamp(0)
	if !w.fits(minPassSpan) || w.fits(minPassSpan+1) {
		t.Errorf("lo = 2^32-1-2^31: fits(2^31) %v fits(2^31+1) %v, want true false", w.fits(minPassSpan), w.fits(minPassSpan+1))
	}
	w = passWindow{lo: 1, hi: math.MaxUint32 - minPassSpan, base: 0}
	if !w.next() || w != newPassWindow() {
		t.Errorf("span of 2^31-1 left: want a zero-fill and a fresh window, got %+v", w)
	}
	w = passWindow{lo: 1, hi: math.MaxUint32, base: 0}
	if !w.next() || w.lo != 1 {
		t.Errorf("stamps used up to MaxUint32: want a zero-fill and lo 1, got %+v", w)
	}
}

func TestPassWindowStampPanics(t *testing.T) {
	w := newPassWindow()
	w.stamp(10)
	defer func() {
		if recover() == nil {
			t.Error("stamp below the base did not panic")
		}
	}()
	w.stamp(9)
}
