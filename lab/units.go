package lab

import "github.com/cleanerlab/cleanerlab/settings"

// ParseBytes, ParseByteRate and ParseCount are settings' parsers, under the
// names the lab's callers use: there is one of each.
var (
	ParseBytes    = settings.ParseBytes
	ParseByteRate = settings.ParseByteRate
	ParseCount    = settings.ParseCount
)
