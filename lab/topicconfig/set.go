package topicconfig

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/settings"
)

// Source says where a resolved value came from.
type Source string

// Sources, lowest precedence first.
const (
	// SourceDefault: Kafka's default (no file set it).
	SourceDefault Source = "default"
	// SourceAssumed: no config source names this topic's policy, so the lab
	// assumes cleanup.policy=compact (what it cleans by default).
	SourceAssumed Source = "assumed"
	// SourceInternal: a Kafka-internal topic whose policy the broker fixes
	// (__consumer_offsets and __transaction_state are created compacted;
	// the KRaft metadata log __cluster_metadata is never compacted).
	SourceInternal Source = "internal-topic"
	// SourceServer: server.properties (a broker name mapped to the topic name).
	SourceServer Source = "server.properties"
	// SourceDynamicDefault: a cluster-wide dynamic broker config from the
	// metadata log (ConfigRecord, resource BROKER, empty name).
	SourceDynamicDefault Source = "dynamic-broker-default"
	// SourceMetadata: a topic ConfigRecord of the metadata log.
	SourceMetadata Source = "cluster-metadata"
	// SourceTopicFile: the --topic-config file.
	SourceTopicFile Source = "topic-config"
)

// Value is one resolved config value.
type Value struct {
	Value  string `json:"value"`
	Source Source `json:"source"`
	// Where is the file and line (or file and offset) it was read at; empty
	// for defaults.
	Where string `json:"where,omitempty"`
}

// Set holds every config source of one data directory. Build it with
// Load, or fill it with the Add methods; the zero value resolves every
// topic to Kafka's defaults (policy assumed compact).
type Set struct {
	// broker holds broker-named values (server.properties and dynamic broker
	// defaults), by broker config name.
	broker map[string]Value
	// topics holds topic overrides, topic -> topic config name -> value.
	topics map[string]map[string]Value
	// metaTopics are the topics the metadata log names (TopicRecord).
	metaTopics map[string]bool
	// haveServer: a server.properties was read, so a topic no source
	// overrides has Kafka's default policy (or the file's) rather than an
	// assumed one.
	haveServer bool
	// Warnings are things worth saying that did not stop loading (an
	// unknown topic in the override file, per-broker dynamic configs).
	Warnings []string
}

// AddServerProperties adds a broker's server.properties. Broker names are
// kept; topic configs are derived from them by synonym at resolution.
// Errors name the file, line and key of a value that does not parse as
// Kafka would take it (a number, a boolean, a cleanup.policy list).
func (s *Set) AddServerProperties(path string, props []Property) error {
	if s.broker == nil {
		s.broker = map[string]Value{}
	}
	s.haveServer = true
	for _, p := range props {
		if err := checkBrokerValue(p.Key, p.Value); err != nil {
			return fmt.Errorf("%s:%d: %s: %v", path, p.Line, p.Key, err)
		}
		s.broker[p.Key] = Value{Value: p.Value, Source: SourceServer, Where: fmt.Sprintf("%s:%d", path, p.Line)}
	}
	return nil
}

// checkBrokerValue checks a broker config's value when it is one the lab
// resolves (a topic synonym or a cleaner config); others are not checked.
func checkBrokerValue(key, value string) error {
	if bt, ok := brokerToTopic[key]; ok {
		k := topicConfigs[bt.topic].kind
		if bt.factor != 1 {
			// log.roll.hours, log.roll.jitter.hours, log.retention.minutes
			// and .hours are INT in Kafka's ServerLogConfigs, so their
			// conversion to ms never overflows int64.
			k = kindInt
		}
		_, err := checkValue(k, value)
		return err
	}
	if bc, ok := brokerConfigs[key]; ok {
		_, err := checkValue(bc.kind, value)
		return err
	}
	return nil
}

// addBrokerDefault adds a dynamic cluster-wide broker config, which beats
// server.properties.
func (s *Set) addBrokerDefault(key, value, where string, deleted bool) error {
	if s.broker == nil {
		s.broker = map[string]Value{}
	}
	if deleted {
		if v, ok := s.broker[key]; ok && v.Source == SourceDynamicDefault {
			delete(s.broker, key)
		}
		return nil
	}
	if err := checkBrokerValue(key, value); err != nil {
		return fmt.Errorf("%s: %s: %v", where, key, err)
	}
	s.broker[key] = Value{Value: value, Source: SourceDynamicDefault, Where: where}
	return nil
}

// AddTopicOverride sets topic's config key from src (SourceMetadata or
// SourceTopicFile; a later call wins). Errors name where and key.
func (s *Set) AddTopicOverride(topic, key, value string, src Source, where string) error {
	if s.topics == nil {
		s.topics = map[string]map[string]Value{}
	}
	if def, ok := topicConfigs[key]; ok {
		norm, err := checkValue(def.kind, value)
		if err != nil {
			return fmt.Errorf("%s: %s: %v", where, key, err)
		}
		value = norm
	}
	if s.topics[topic] == nil {
		s.topics[topic] = map[string]Value{}
	}
	s.topics[topic][key] = Value{Value: value, Source: src, Where: where}
	return nil
}

// removeTopicOverride drops a metadata override (a ConfigRecord with a null value).
func (s *Set) removeTopicOverride(topic, key string) {
	if m := s.topics[topic]; m != nil {
		if v, ok := m[key]; ok && v.Source == SourceMetadata {
			delete(m, key)
		}
	}
}

// Topics returns the topics with overrides or named by the metadata log, sorted.
func (s *Set) Topics() []string {
	seen := map[string]bool{}
	for t := range s.topics {
		seen[t] = true
	}
	for t := range s.metaTopics {
		seen[t] = true
	}
	out := make([]string, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// MetadataTopics returns the topics the metadata log's TopicRecords name
// (those not removed since), sorted.
func (s *Set) MetadataTopics() []string {
	out := make([]string, 0, len(s.metaTopics))
	for t := range s.metaTopics {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// WarnUnknownTopics adds a warning for every topic of the --topic-config
// file that is not among known (the data directory's topics).
func (s *Set) WarnUnknownTopics(known map[string]bool) {
	for _, t := range s.Topics() {
		if known[t] {
			continue
		}
		for _, v := range s.topics[t] {
			if v.Source == SourceTopicFile {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s: topic %q has overrides but no partition in the data directory", strings.SplitN(v.Where, ":", 2)[0], t))
				break
			}
		}
	}
}

// Resolved is the effective config of one topic.
type Resolved struct {
	Topic string `json:"topic"`
	// Policy is cleanup.policy: "compact", "delete", "compact,delete" or ""
	// (neither).
	Policy string `json:"policy"`
	// PolicySource says how the policy was decided.
	PolicySource Source `json:"policy_source"`
	// Configs holds every topic config the lab knows, by Kafka name.
	Configs map[string]Value `json:"configs"`
	// Log is the engine's config built from Configs.
	Log engine.LogConfig `json:"-"`
}

// Compact reports whether the policy contains compact.
func (r *Resolved) Compact() bool { return strings.Contains(r.Policy, "compact") }

// Delete reports whether the policy contains delete.
func (r *Resolved) Delete() bool { return strings.Contains(r.Policy, "delete") }

// For resolves topic's effective configs. The policy of a topic no source
// names is Kafka's default (delete) when server.properties was given, and
// assumed compact otherwise (SourceAssumed); Kafka's internal topics have
// their fixed policy unless an override says otherwise.
func (s *Set) For(topic string) (Resolved, error) {
	r := Resolved{Topic: topic, Configs: map[string]Value{}}
	for name, def := range topicConfigs {
		v := Value{Value: def.def, Source: SourceDefault}
		if bv, ok := s.brokerValue(name); ok {
			v = bv
		}
		if o, ok := s.topics[topic][name]; ok {
			v = o
		}
		r.Configs[name] = v
	}
	pol := r.Configs["cleanup.policy"]
	switch {
	case pol.Source == SourceMetadata || pol.Source == SourceTopicFile || pol.Source == SourceServer || pol.Source == SourceDynamicDefault:
		r.PolicySource = pol.Source
	case topic == "__consumer_offsets" || topic == "__transaction_state" || topic == "__share_group_state":
		pol = Value{Value: "compact", Source: SourceInternal}
		r.PolicySource = SourceInternal
	case topic == "__cluster_metadata":
		pol = Value{Value: "delete", Source: SourceInternal}
		r.PolicySource = SourceInternal
	case s.haveServer || s.topics[topic] != nil || s.metaTopics[topic]:
		// A source describes the topic and none overrides the policy:
		// Kafka's default applies.
		r.PolicySource = SourceDefault
	default:
		pol = Value{Value: "compact", Source: SourceAssumed}
		r.PolicySource = SourceAssumed
	}
	r.Configs["cleanup.policy"] = pol
	r.Policy = pol.Value
	lc, err := toLogConfig(r.Configs, s.brokerOr("producer.id.expiration.ms"))
	if err != nil {
		return r, fmt.Errorf("topicconfig: topic %s: %w", topic, s.blame(err, r.Configs))
	}
	lc.Compact, lc.Delete = r.Compact(), r.Delete()
	r.Log = lc
	return r, nil
}

// brokerValue is the broker default of topic config name: the highest
// precedence source among its synonyms (dynamic beats static), and within
// one source the first synonym set, converted to the topic's unit.
func (s *Set) brokerValue(name string) (Value, bool) {
	for _, src := range []Source{SourceDynamicDefault, SourceServer} {
		for _, syn := range topicSynonyms[name] {
			bv, ok := s.broker[syn.broker]
			if !ok || bv.Source != src {
				continue
			}
			val, err := convert(bv.Value, syn.factor)
			if err != nil {
				continue // checked when added
			}
			if def, ok := topicConfigs[name]; ok {
				if n, err := checkValue(def.kind, val); err == nil {
					val = n
				}
			}
			return Value{Value: val, Source: bv.Source, Where: bv.Where}, true
		}
	}
	return Value{}, false
}

// brokerOr returns a broker config's value or its Kafka default.
func (s *Set) brokerOr(key string) Value {
	if v, ok := s.broker[key]; ok {
		return v
	}
	return Value{Value: brokerConfigs[key].def, Source: SourceDefault}
}

// Broker returns the broker-wide configs the lab knows (log.cleaner.* and
// friends) with their sources.
func (s *Set) Broker() map[string]Value {
	out := map[string]Value{}
	for k := range brokerConfigs {
		out[k] = s.brokerOr(k)
	}
	return out
}

// CleanerConfig is the one merge of the cleaner's settings
// (settings.CleanerRegistry.Resolve): base (the command's defaults, with
// what its flags set) < the broker configs of s that are cleaner settings,
// by their Kafka names (log.cleaner.threads, .dedupe.buffer.size,
// .io.buffer.size, .io.buffer.load.factor, .io.max.bytes.per.second, whose
// Double.MaxValue default is "no limit", 0 here) < flags, the values given
// on the command line, in its order, where a Given keyed ProfileKey
// applies that profile (engine.CleanerConfig.ApplyProfile; its Value an
// engine profile name) at its place, so that a flag before a --profile
// that sets the same setting loses to it, as it does without a file. It
// returns the config, validated, and where each setting came from (one a
// profile changed: Origin.Profile its name). A value of s out of range is
// named by its file, line and key ("server.properties:2:
// log.cleaner.threads: engine: ...").
func (s *Set) CleanerConfig(base engine.CleanerConfig, flags ...settings.Given) (engine.CleanerConfig, map[string]settings.Origin, error) {
	given := Givens(s.BrokerGivens(), settings.CleanerRegistry)
	c, origins, err := resolveCleaner(base, append(given, flags...))
	if err != nil {
		return c, origins, fmt.Errorf("topicconfig: %w", err)
	}
	if verr := c.Validate(); verr != nil {
		var ce *engine.ConfigError
		if errors.As(verr, &ce) && origins[ce.Config].From == settings.FromFlag {
			return c, origins, verr // it names its flag
		}
		if blamed := s.blame(verr, s.Broker()); blamed != verr {
			return c, origins, blamed
		}
		return c, origins, fmt.Errorf("topicconfig: %w", verr)
	}
	return c, origins, nil
}

// ProfileKey is the key of a --profile among the values given to
// Set.CleanerConfig and Sources.Given (its Value an engine profile name).
const ProfileKey = "profile"

// resolveCleaner is settings.CleanerRegistry.Resolve of givens (stably
// ordered by From, as Resolve orders them) over base, but a Given keyed
// ProfileKey applies that profile at its place: the settings it changes
// take its origin (Origin.Profile its name), the values after it win.
func resolveCleaner(base engine.CleanerConfig, givens []settings.Given) (engine.CleanerConfig, map[string]settings.Origin, error) {
	rest := slices.Clone(givens)
	slices.SortStableFunc(rest, func(a, b settings.Given) int { return cmp.Compare(a.From, b.From) })
	c, origins := base, map[string]settings.Origin{}
	var errs []error
	for len(rest) > 0 {
		i := slices.IndexFunc(rest, func(g settings.Given) bool { return g.Key == ProfileKey })
		if i < 0 {
			i = len(rest)
		}
		next, o, err := settings.CleanerRegistry.Resolve(c, rest[:i]...)
		c, errs = next, append(errs, err)
		for name, got := range o {
			if got.From != settings.FromDefault {
				origins[name] = got
			}
		}
		if i == len(rest) {
			break
		}
		p, before := rest[i], c
		if err := c.ApplyProfile(p.Value); err != nil {
			errs = append(errs, &settings.Error{Setting: ProfileKey, Value: p.Value, Where: p.Where, Err: err})
		}
		for _, st := range settings.CleanerRegistry.All() {
			if st.Var(&before).String() != st.Var(&c).String() {
				origins[st.Name] = settings.Origin{From: p.From, Where: p.Where, Profile: p.Value}
			}
		}
		rest = rest[i+1:]
	}
	for _, st := range settings.CleanerRegistry.All() {
		o := origins[st.Name]
		o.Value = st.Var(&c).String()
		origins[st.Name] = o
	}
	return c, origins, errors.Join(errs...)
}

// BrokerGivens are the broker-wide values of s that a setting of the lab
// takes, by their Kafka names, as values FromServerProperties for
// settings.Registry.Resolve, sorted by name: the broker configs
// (log.cleaner.threads, .dedupe.buffer.size, ...) and the broker defaults
// of topic configs through their synonyms (log.segment.bytes gives
// segment.bytes, log.roll.hours gives segment.ms in ms), each where the
// file (or the metadata log) set it. Kafka's defaults are not values
// given, a topic's own overrides are not broker-wide, and cleanup.policy
// is left out: the lab's logs are compacted whatever a broker's default
// policy is.
func (s *Set) BrokerGivens() []settings.Given {
	var given []settings.Given
	for name, v := range s.Broker() {
		if v.Source != SourceDefault {
			given = append(given, settings.Given{Key: name, Value: v.Value, From: settings.FromServerProperties, Where: v.Where})
		}
	}
	for name := range topicConfigs {
		if v, ok := s.brokerValue(name); ok && name != "cleanup.policy" {
			given = append(given, settings.Given{Key: name, Value: v.Value, From: settings.FromServerProperties, Where: v.Where})
		}
	}
	sort.Slice(given, func(i, j int) bool { return given[i].Key < given[j].Key })
	return given
}

// Givens keeps the values of given that are settings of reg by their Kafka
// names.
func Givens[R any](given []settings.Given, reg *settings.Registry[R]) []settings.Given {
	var out []settings.Given
	for _, g := range given {
		if st, ok := reg.Lookup(g.Key); ok && st.Kafka && st.Name == g.Key {
			out = append(out, g)
		}
	}
	return out
}

// blame prefixes an engine range error (*engine.ConfigError) with the
// file, line and key the offending value was read from, as a parse error
// is ("server.properties:2: log.cleaner.threads: engine: ..."); a topic
// config set through a broker synonym is named by the synonym the file
// holds (log.segment.bytes for segment.bytes). An error naming no config
// with a known source is returned as it is.
func (s *Set) blame(err error, values map[string]Value) error {
	var ce *engine.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	name := ce.Config
	v, ok := values[name]
	if !ok || v.Where == "" {
		return err
	}
	key := name
	if v.Source == SourceServer || v.Source == SourceDynamicDefault {
		for _, syn := range topicSynonyms[name] {
			if bv, ok := s.broker[syn.broker]; ok && bv.Where == v.Where {
				key = syn.broker
				break
			}
		}
	}
	return fmt.Errorf("%s: %s: %w", v.Where, key, err)
}

// toLogConfig builds the engine's LogConfig from resolved topic configs:
// each one that is a setting of settings.Log (but cleanup.policy, which
// the caller sets), parsed by its setting, over Kafka's defaults, then
// validated (Kafka allows retention.ms = -1 and retention.bytes = -1: no
// limit; the engine's Validate names any value out of its range).
func toLogConfig(cfg map[string]Value, pidExpiry Value) (engine.LogConfig, error) {
	var given []settings.Given
	for name, v := range cfg {
		if st, ok := settings.LogRegistry.Lookup(name); !ok || st.Name != name || name == "cleanup.policy" || v.Source == SourceDefault {
			continue
		}
		given = append(given, settings.Given{Key: name, Value: v.Value, From: settings.FromServerProperties, Where: strings.TrimSpace(string(v.Source) + " " + v.Where)})
	}
	if pidExpiry.Source != SourceDefault {
		given = append(given, settings.Given{Key: "producer.id.expiration.ms", Value: pidExpiry.Value, From: settings.FromServerProperties, Where: strings.TrimSpace(string(pidExpiry.Source) + " " + pidExpiry.Where)})
	}
	sort.Slice(given, func(i, j int) bool { return given[i].Key < given[j].Key })
	lc, _, err := settings.LogRegistry.Resolve(engine.DefaultLogConfig(), given...)
	if err != nil {
		return lc, err
	}
	if verr := lc.Validate(); verr != nil {
		return lc, verr
	}
	return lc, nil
}
