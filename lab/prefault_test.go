package lab

import (
	"errors"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// prefaulting is an offset map that counts its Prefault calls and fails
// them with err.
type prefaulting struct {
	offsetmap.Map
	calls int
	err   error
}

func (p *prefaulting) Prefault() error { p.calls++; return p.err }

// plainMap hides its map's Prefault (every offsetmap layout has one): a map
// that cannot pre-fault.
type plainMap struct{ offsetmap.Map }

// TestPrefaultMaps: a map that can pre-fault is pre-faulted once, before
// the clean, and the row says so; a map that cannot, or whose Prefault
// fails, gets the fault-time row of a same-sized fresh allocation.
func TestPrefaultMaps(t *testing.T) {
	cfg := engine.DefaultCleanerConfig()
	cfg.DedupeBufferBytes = 1 << 20
	newMap := func() offsetmap.Map {
		m, err := offsetmap.New("skimpy", 1<<20, mustHasher(t))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	rowNames := func(r FaultReport) string {
		var names []string
		for _, row := range r.rows() {
			names = append(names, row.Name+"="+row.Unit)
		}
		return strings.Join(names, ",")
	}

	pf := &prefaulting{Map: newMap()}
	m, err := NewCleanManager(nil, cfg, engine.CleanerOptions{Map: pf})
	if err != nil {
		t.Fatal(err)
	}
	r := PrefaultMaps(m, cfg)
	if pf.calls != 1 || r.Maps != 1 || r.Prefaulted != 1 || r.MapBytes != 1<<20 || r.ProxyTime != 0 || rowNames(r) != "map pre-fault=s" {
		t.Errorf("prefaulting map: %d calls, report %+v, rows %s", pf.calls, r, rowNames(r))
	}

	m, err = NewCleanManager(nil, cfg, engine.CleanerOptions{Map: plainMap{newMap()}})
	if err != nil {
		t.Fatal(err)
	}
	r = PrefaultMaps(m, cfg)
	if r.Prefaulted != 0 || r.ProxyTime <= 0 || rowNames(r) != "map fault time=s" {
		t.Errorf("plain map: report %+v, rows %s", r, rowNames(r))
	}

	// offsetmap's own layouts pre-fault (offsetmap.Prefaulter).
	m, err = NewCleanManager(nil, cfg, engine.CleanerOptions{Map: newMap()})
	if err != nil {
		t.Fatal(err)
	}
	if r = PrefaultMaps(m, cfg); r.Prefaulted != 1 || r.Err != nil || rowNames(r) != "map pre-fault=s" {
		t.Errorf("skimpy map: report %+v, rows %s", r, rowNames(r))
	}

	bad := &prefaulting{Map: newMap(), err: errors.New("mlock refused")}
	m, err = NewCleanManager(nil, cfg, engine.CleanerOptions{Map: bad})
	if err != nil {
		t.Fatal(err)
	}
	r = PrefaultMaps(m, cfg)
	if r.Prefaulted != 0 || r.Err == nil || !strings.Contains(r.rows()[len(r.rows())-1].Meaning, "Prefault failed: mlock refused") {
		t.Errorf("failing Prefault: report %+v, rows %+v", r, r.rows())
	}
}

// TestNewPrefaultedCleaner: the cleaner's map is pre-faulted once when it
// is made, and the report has the allocation row before the pre-fault row.
func TestNewPrefaultedCleaner(t *testing.T) {
	cfg := engine.DefaultCleanerConfig()
	cfg.DedupeBufferBytes = 1 << 20
	m, err := offsetmap.New("skimpy", 1<<20, mustHasher(t))
	if err != nil {
		t.Fatal(err)
	}
	pf := &prefaulting{Map: m}
	c, r, err := NewPrefaultedCleaner(cfg, engine.CleanerOptions{Map: pf})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, row := range r.rows() {
		names = append(names, row.Name)
	}
	if c.OffsetMap() != pf || pf.calls != 1 || !r.AllocMeasured || r.Maps != 1 || r.Prefaulted != 1 || r.MapBytes != 1<<20 ||
		strings.Join(names, ",") != "map allocate,map pre-fault" {
		t.Errorf("%d Prefault calls, report %+v, rows %v", pf.calls, r, names)
	}
	cfg.DedupeBufferBytes = 1
	if _, _, err := NewPrefaultedCleaner(cfg, engine.CleanerOptions{}); err == nil {
		t.Error("a 1-byte dedupe buffer: no error")
	}
}

func mustHasher(t *testing.T) offsetmap.Hasher {
	h, err := offsetmap.NewHasher("md5")
	if err != nil {
		t.Fatal(err)
	}
	return h
}
