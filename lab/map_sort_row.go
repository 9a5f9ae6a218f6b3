package lab

import (
	"fmt"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/results"
)

// MapSortBufferRow is the map sort buffer row of cfg
// (CleanerConfig.MapSortBufferBytes, --map-sort-buffer-bytes): the
// configured bytes of all threads in MiB, one decimal, as the rows of
// bytes beside it (Unit "MiB") and, in its meaning,
// each thread's share and its size in puts for a map of slots slots
// (CleanerConfig.PerThreadMapSortPuts; slots <= 0, unknown, leaves the
// count out; 0 puts, with the reason, where the buffer would be under
// offsetmap.SortMinPuts). "off" when MapSortBufferBytes is 0, or when cfg's layout
// has no sort buffer (only bucket16 has one: the setting is then ignored,
// as CleanerConfig.IgnoredSettings warns). It reports the setting, not
// where the buffer's memory comes from.
func MapSortBufferRow(cfg engine.CleanerConfig, slots int) results.Row {
	const name = "map sort buffer"
	if cfg.MapSortBufferBytes <= 0 {
		return results.Row{Name: name, Value: "off", Meaning: "--map-sort-buffer-bytes 0: the map build's puts go straight into the offset map, one random place each"}
	}
	layout := cfg.OffsetMap
	if layout == "" {
		layout = offsetmap.LayoutSkimpy
	}
	if layout != offsetmap.LayoutBucket16 {
		return results.Row{Name: name, Value: "off", Meaning: fmt.Sprintf("--map-sort-buffer-bytes %d is ignored: the %s offset map cannot hold its puts in a sort buffer (bucket16 can)", cfg.MapSortBufferBytes, layout)}
	}
	meaning := "--map-sort-buffer-bytes, all threads"
	if cfg.Threads > 0 {
		meaning += fmt.Sprintf(": %s per thread", results.FormatBytes(cfg.MapSortBufferBytes/int64(cfg.Threads)))
	}
	if slots > 0 {
		meaning += fmt.Sprintf(", %d puts (at most the map's %d slots)", cfg.PerThreadMapSortPuts(slots), slots)
		if cfg.PerThreadMapSortPuts(slots) == 0 {
			meaning += fmt.Sprintf(": under the %d a flush sorts (a share of the dedupe buffer under 512 KiB, or fewer asked), so none is taken out of it, the table keeps the whole share and the map build's puts go straight into it", offsetmap.SortMinPuts)
			return results.Row{Name: name, Value: fmt.Sprint(cfg.MapSortBufferBytes), Unit: "bytes", Meaning: meaning}
		}
	}
	meaning += "; the map build's puts wait there and are written sorted by their place in the table"
	return results.Row{Name: name, Value: mib(cfg.MapSortBufferBytes), Unit: "MiB", Meaning: meaning}
}
