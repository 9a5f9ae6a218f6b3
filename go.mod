module github.com/cleanerlab/cleanerlab

go 1.26.0

require (
	github.com/cockroachdb/datadriven v1.0.3
	github.com/dgryski/go-metro v0.0.0-20250106013310-edb8663e5e33
	github.com/eapache/go-xerial-snappy v0.0.0-20230731223053-c322873962e3
	github.com/golang/snappy v0.0.4
	github.com/klauspost/compress v1.20.4
	github.com/pierrec/lz4/v4 v4.1.33
	github.com/prometheus/procfs v0.23.0
	github.com/schollz/progressbar/v3 v3.19.1
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	github.com/twmb/franz-go/pkg/kmsg v1.15.1
	github.com/twmb/murmur3 v1.2.2
	github.com/zeebo/xxh3 v1.1.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.44.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
)
