package iosched

import "testing"

// TestBaselineFileSize: the default file is 1 GiB, or twice the device's
// cache when that is known and larger.
func TestBaselineFileSize(t *testing.T) {
	for _, c := range []struct{ cache, file, want int64 }{
		{0, 0, 1 << 30},
		{256 << 20, 0, 1 << 30},
		{768 << 20, 0, 1536 << 20},
		{768 << 20, 4 << 20, 4 << 20}, // given: kept
	} {
		o := BaselineOptions{DeviceCacheBytes: c.cache, FileBytes: c.file}
		o.defaults()
		if o.FileBytes != c.want {
			t.Errorf("device cache %d, file %d: %d bytes, want %d", c.cache, c.file, o.FileBytes, c.want)
		}
	}
	if err := (BaselineOptions{DeviceCacheBytes: -1}).Validate(); err == nil {
		t.Error("negative device cache accepted")
	}
}
