package iosched

import (
	"strings"
	"testing"
)

func TestReadaheadBytesNegative(t *testing.T) {
	_, err := NewSegmentReader(ReaderOptions{ReadaheadBytes: -1})
	if err == nil || !strings.Contains(err.Error(), "read-ahead") || !strings.Contains(err.Error(), "-1") {
		t.Fatalf("ReadaheadBytes -1: %v", err)
	}
}
