package lab

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/settings"
)

// layoutNotes says in a few words what each layout is.
var layoutNotes = map[string]string{
	offsetmap.LayoutSkimpy:   "Kafka's SkimpyOffsetMap: digest + 8-byte offset, clear zero-fills",
	offsetmap.LayoutDense16:  "96-bit fingerprint + 32-bit relative offset, linear probing, O(1) clear",
	offsetmap.LayoutDense12:  "64-bit fingerprint + 32-bit relative offset, linear probing, O(1) clear",
	offsetmap.LayoutBucket16: "dense16's entries 4 to a 64-byte cache line, one line per lookup, batched API, O(1) clear",
}

// WriteHashers prints every offset-map hasher and layout, and for each
// pair the bytes per entry, the fingerprint bits, the keys one pass holds in
// Kafka's default 128 MiB dedupe buffer at load factor 0.9 and the
// collision probability of a pass over keys distinct keys: computed
// (offsetmap.LayoutInfo, the birthday bound), not measured.
func WriteHashers(out io.Writer, keys int64) error {
	const memory = offsetmap.DefaultMemoryBytes
	const lf = offsetmap.DefaultLoadFactor
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HASHER\tDIGEST BYTES")
	for _, name := range offsetmap.HasherNames() {
		h, err := offsetmap.NewHasher(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%d\n", name, h.Size())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out)
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LAYOUT\tWHAT")
	for _, name := range offsetmap.LayoutNames() {
		fmt.Fprintf(tw, "%s\t%s\n", name, layoutNotes[name])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nper layout and hasher: 128 MiB dedupe buffer, load factor %v, collision probability for %d keys\n", lf, keys)
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "LAYOUT\tHASHER\tBYTES/ENTRY\tFP BITS\tKEYS/128MiB@0.9\tVS KAFKA\tP(COLLISION)\t")
	kafka := 0
	for _, layout := range offsetmap.LayoutNames() {
		for _, name := range offsetmap.HasherNames() {
			h, err := offsetmap.NewHasher(name)
			if err != nil {
				return err
			}
			info, err := offsetmap.Describe(layout, h)
			if err != nil {
				return err
			}
			max := info.MaxKeys(memory, lf)
			if layout == offsetmap.LayoutSkimpy && name == offsetmap.HasherMD5 {
				kafka = max
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.2fx\t%.3g\t\n", layout, name, info.EntryBytes, info.FingerprintBits, max,
				float64(max)/float64(kafka), info.CollisionProbability(keys))
		}
	}
	return tw.Flush()
}

// HashersCommandOptions are the hashers command's options.
type HashersCommandOptions struct {
	// Keys is the distinct keys of one pass, for the collision
	// probability.
	Keys int64
}

// HashersFlags are the hashers command's flags. The default --keys is
// issue 4's goal: a collision probability below 1e-12 for 10M keys.
var HashersFlags = settings.MustRegistry(func() HashersCommandOptions { return HashersCommandOptions{Keys: 10_000_000} },
	[]settings.Setting[HashersCommandOptions]{
		settings.Flag("keys", "distinct keys in one pass, for the collision probability (1e7 is accepted)",
			func(o *HashersCommandOptions) settings.Value { return settings.Count(&o.Keys) }),
	})

// HashersCommand is the hashers command: WriteHashers of o.Keys (which
// may not be negative).
func HashersCommand(out io.Writer, o HashersCommandOptions) error {
	if o.Keys < 0 {
		return fmt.Errorf("hashers: --keys %d is negative", o.Keys)
	}
	return WriteHashers(out, o.Keys)
}
