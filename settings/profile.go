package settings

import (
	"strconv"

	"github.com/cleanerlab/cleanerlab/engine"
)

// ProfileDoc is --profile's doc line: what each of engine's profiles sets
// (engine.CleanerConfig.ApplyProfile), its sizes from engine's Best*
// constants.
func ProfileDoc() string {
	mib := func(n int64) string { return strconv.FormatInt(n>>20, 10) + "MiB" }
	return "set the speed-deciding cleaner settings at once: kafka (md5, skimpy, no map huge pages, pread without read-ahead, no write-behind, no sync-behind, no early write-back, no parallel copy, every CRC checked on every read, every record decoded whole, no O_DIRECT output, no parallel recompression) or best (xxh3-128, bucket16, map huge pages, pread with " +
		mib(engine.BestReadaheadBytes) + " of read-ahead, write-behind, sync-behind, skip-dirty-lookups, parallel-copy, verify-crc-once, key-scan, parallel-map-build, no parallel-lookups, no look-ahead, writeback-bytes " +
		mib(engine.BestWritebackBytes) + ", O_DIRECT output in " + mib(engine.BestWriteDirectBytes) + " writes where the records average " +
		strconv.FormatInt(engine.BestWriteDirectMinRecordBytes, 10) + " B or more or the round rewrites " + mib(engine.BestWriteDirectMinCleanBytes) +
		" or more (decided per round, from the records the map build read and the segments the copy rewrites), no parallel recompression); flags after it override its settings"
}

// profile is the --profile flag: engine.CleanerConfig.ApplyProfile of the
// name given.
type profile struct {
	cfg   *engine.CleanerConfig
	name  *string
	alias map[string]string
}

func (p profile) Unit() Unit                   { return UnitEnum }
func (p profile) Type() string                 { return "profile" }
func (p profile) String() string               { return *p.name }
func (p profile) MarshalText() ([]byte, error) { return []byte(*p.name), nil }
func (p profile) UnmarshalText(b []byte) error { return p.Set(string(b)) }
func (p profile) Set(s string) error {
	apply := s
	if a, ok := p.alias[s]; ok {
		apply = a
	}
	if err := p.cfg.ApplyProfile(apply); err != nil {
		return err
	}
	*p.name = s
	return nil
}

// Profile binds --profile to cfg: each name given applies that profile of
// engine.CleanerConfig.ApplyProfile to cfg (at its place among the flags:
// those after it override its settings). alias maps further names to the
// profile they apply (kafka-jvm: kafka's settings, for our side of a
// comparison with Kafka's own cleaner); the value's text is the name given.
func Profile(cfg *engine.CleanerConfig, alias map[string]string) Value {
	return profile{cfg: cfg, name: new(string), alias: alias}
}
