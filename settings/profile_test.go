package settings

import (
	"strings"
	"testing"
)

// TestProfileDocSaysWhatEachProfileSets: --profile's help says what
// engine.CleanerConfig.ApplyProfile sets (engine's ProfileKafka and
// ProfileBest docs): Kafka's profile writes through the page cache; the
// best profile writes O_DIRECT in 1 MiB writes (BestWriteDirectBytes)
// where the map build's records average 256 bytes or more
// (BestWriteDirectMinRecordBytes), and puts its maps in huge pages.
func TestProfileDocSaysWhatEachProfileSets(t *testing.T) {
	doc := ProfileDoc()
	kafka, best, ok := strings.Cut(doc, " or best (")
	if !ok {
		t.Fatalf("doc %q: want \"kafka (...) or best (...)\"", doc)
	}
	if !strings.Contains(kafka, "no O_DIRECT output") {
		t.Errorf("kafka's part %q: want \"no O_DIRECT output\" (WriteDirectBytes 0)", kafka)
	}
	if strings.Contains(best, "no O_DIRECT") {
		t.Errorf("best's part %q says no O_DIRECT output; ProfileBest writes O_DIRECT from records of 256 B", best)
	}
	if !strings.Contains(best, "O_DIRECT output in 1MiB writes where the records average 256 B or more") {
		t.Errorf("best's part %q: want its O_DIRECT output (1 MiB writes, records of 256 B or more) named", best)
	}
	if !strings.Contains(best, "or the round rewrites 384MiB or more") {
		t.Errorf("best's part %q: want its clean-size rule (BestWriteDirectMinCleanBytes, 384 MiB) named", best)
	}
	if !strings.Contains(best, "map huge pages") || !strings.Contains(kafka, "no map huge pages") {
		t.Errorf("doc %q: want map huge pages in best, none in kafka", doc)
	}
}
