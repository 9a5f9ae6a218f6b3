package replication

import "testing"

// TestReproducerHeader: a shrunk reproducer says where it came from and
// what it shows, and, when the campaign's brokers had a cleaner profile,
// how to replay it with the same cleaners.
func TestReproducerHeader(t *testing.T) {
	for _, c := range []struct {
		profile, want string
	}{
		{"", "# Shrunk from the campaign run with seed 7 (mode independent): the smallest\n# schedule found that still shows resurrected-key.\n"},
		{"best", "# Shrunk from the campaign run with seed 7 (mode independent): the smallest\n# schedule found that still shows resurrected-key.\n" +
			"# The brokers' cleaners had --profile best: replay with\n# cleanerlab replicas run --profile best FILE.\n"},
	} {
		if got := reproducerHeader(7, Independent, ResurrectedKey, c.profile); got != c.want {
			t.Errorf("profile %q: header\n%s\nwant\n%s", c.profile, got, c.want)
		}
	}
}
