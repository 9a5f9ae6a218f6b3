package lab

import (
	"errors"
	"fmt"
	"sort"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/settings"
)

// BrokerGiven returns the broker configs of set (server.properties and
// dynamic broker configs, not Kafka's defaults) that are settings of reg,
// by their Kafka names, as values FromServerProperties with the file and
// line they were read at; nil for a nil set.
func BrokerGiven[R any](reg *settings.Registry[R], set *topicconfig.Set) []settings.Given {
	if set == nil {
		return nil
	}
	var out []settings.Given
	for name, v := range set.Broker() {
		if s, ok := reg.Lookup(name); !ok || !s.Kafka || s.Name != name || v.Source == topicconfig.SourceDefault {
			continue
		}
		out = append(out, settings.Given{Key: name, Value: v.Value, From: settings.FromServerProperties, Where: v.Where})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// ResolveCleaner is the one merge of the cleaner's settings: base (the
// command's defaults, with what its flags set) < the broker configs of set
// (BrokerGiven) < the flags given (FlagsGiven), validated. It returns the
// config and where each setting came from. A value out of range from
// server.properties is named by its file and line ("server.properties:2:
// log.cleaner.threads: engine: ..."), as Kafka's own messages do.
func ResolveCleaner(base engine.CleanerConfig, set *topicconfig.Set, flags []settings.Given) (engine.CleanerConfig, map[string]settings.Origin, error) {
	c, origins, err := CleanerRegistry.Resolve(base, append(BrokerGiven(CleanerRegistry, set), flags...)...)
	if err != nil {
		return c, origins, err
	}
	if err := c.Validate(); err != nil {
		return c, origins, blameOrigin(err, origins)
	}
	return c, origins, nil
}

// blameOrigin prefixes a validation error (*engine.ConfigError) of a value
// read from a file with the file's "path:line" and the setting's name; an
// error of a flag or a default is returned as it is (it names its flag).
func blameOrigin(err error, origins map[string]settings.Origin) error {
	var ce *engine.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	if o, ok := origins[ce.Config]; ok && o.Where != "" && o.From != settings.FromFlag {
		return fmt.Errorf("%s: %s: %w", o.Where, ce.Config, err)
	}
	return err
}
