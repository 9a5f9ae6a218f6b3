package lab

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/results"
)

// TestCleanedByInTheHash: which cleaner cleaned is part of the experiment:
// an experiment cleaned by Kafka's own cleaner gets another config hash
// than the same one cleaned by ours, while an experiment of ours marshals
// without the field (so every older record keeps its hash).
func TestCleanedByInTheHash(t *testing.T) {
	e := DefaultExperiment()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "cleaned_by") {
		t.Errorf("our cleaner's experiment marshals cleaned_by: %s", b)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ours, _ := results.NewID(at, e)
	e.CleanedBy = CleanedByKafkaJVM
	kafka, _ := results.NewID(at, e)
	if ours == kafka {
		t.Errorf("cleaned by kafka-jvm and by ours: one ID %s", ours)
	}
}

// TestRunRefusesCleanedByWithoutItsCleaner: an experiment cleaned by an
// external cleaner (cleaned_by) is not run by ours, nor by another
// external cleaner; both are refused before anything is generated.
func TestRunRefusesCleanedByWithoutItsCleaner(t *testing.T) {
	e := smallExperiment()
	e.CleanedBy = CleanedByKafkaJVM
	data := t.TempDir()
	if _, err := Run(context.Background(), e, Options{Out: t.TempDir(), Dir: data}); err == nil || !strings.Contains(err.Error(), "kafka-jvm") {
		t.Errorf("ours on a kafka-jvm experiment: %v, want an error naming kafka-jvm", err)
	}
	if _, err := Run(context.Background(), e, Options{Out: t.TempDir(), Dir: data, External: &fakeExternal{}}); err == nil || !strings.Contains(err.Error(), "fake") {
		t.Errorf("fake on a kafka-jvm experiment: %v, want an error naming both", err)
	}
	e.CleanedBy = ""
	if _, err := Run(context.Background(), e, Options{Out: t.TempDir(), Dir: data, External: &fakeExternal{}}); err == nil || !strings.Contains(err.Error(), "fake") {
		t.Errorf("fake on our experiment: %v, want an error", err)
	}
	if es, _ := os.ReadDir(data); len(es) != 0 {
		t.Errorf("data directory not empty: %v", es)
	}
}
