package topicconfig

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// kind is how a config's value is parsed.
type kind int

const (
	kindLong kind = iota
	kindInt
	kindDouble
	kindBool
	kindList   // cleanup.policy: a comma-separated list
	kindString // kept as text, not used by the cleaner
)

// topicConfigs are the topic configs the lab resolves, with their kind and
// Kafka's default (LogConfig / TopicConfig). Those the store and cleaner
// use are turned into an engine.LogConfig; the others are only reported.
var topicConfigs = map[string]struct {
	kind kind
	def  string
}{
	"cleanup.policy":                 {kindList, "delete"},
	"segment.bytes":                  {kindInt, "1073741824"},
	"segment.ms":                     {kindLong, "604800000"},
	"segment.jitter.ms":              {kindLong, "0"},
	"segment.index.bytes":            {kindInt, "10485760"},
	"flush.messages":                 {kindLong, "9223372036854775807"},
	"flush.ms":                       {kindLong, "9223372036854775807"},
	"retention.bytes":                {kindLong, "-1"},
	"retention.ms":                   {kindLong, "604800000"},
	"max.message.bytes":              {kindInt, "1048588"},
	"index.interval.bytes":           {kindInt, "4096"},
	"delete.retention.ms":            {kindLong, "86400000"},
	"min.compaction.lag.ms":          {kindLong, "0"},
	"max.compaction.lag.ms":          {kindLong, "9223372036854775807"},
	"file.delete.delay.ms":           {kindLong, "60000"},
	"min.cleanable.dirty.ratio":      {kindDouble, "0.5"},
	"unclean.leader.election.enable": {kindBool, "false"},
	"min.insync.replicas":            {kindInt, "1"},
	"compression.type":               {kindString, "producer"},
	"preallocate":                    {kindBool, "false"},
	"message.timestamp.type":         {kindString, "CreateTime"},
	"local.retention.ms":             {kindLong, "-2"},
	"local.retention.bytes":          {kindLong, "-2"},
}

// synonym is one broker config standing for a topic config, with the factor
// turning its unit into the topic config's (Kafka's ConfigSynonym converters).
type synonym struct {
	broker string
	factor int64 // 1, or ms per minute / hour
}

// topicSynonyms maps a topic config to its broker configs, highest priority
// first, as Kafka's ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS: when
// several are set, only the first is used.
var topicSynonyms = map[string][]synonym{
	"segment.bytes":                  {{"log.segment.bytes", 1}},
	"segment.ms":                     {{"log.roll.ms", 1}, {"log.roll.hours", 3_600_000}},
	"segment.jitter.ms":              {{"log.roll.jitter.ms", 1}, {"log.roll.jitter.hours", 3_600_000}},
	"segment.index.bytes":            {{"log.index.size.max.bytes", 1}},
	"flush.messages":                 {{"log.flush.interval.messages", 1}},
	"flush.ms":                       {{"log.flush.interval.ms", 1}, {"log.flush.scheduler.interval.ms", 1}},
	"retention.bytes":                {{"log.retention.bytes", 1}},
	"retention.ms":                   {{"log.retention.ms", 1}, {"log.retention.minutes", 60_000}, {"log.retention.hours", 3_600_000}},
	"max.message.bytes":              {{"message.max.bytes", 1}},
	"index.interval.bytes":           {{"log.index.interval.bytes", 1}},
	"delete.retention.ms":            {{"log.cleaner.delete.retention.ms", 1}},
	"min.compaction.lag.ms":          {{"log.cleaner.min.compaction.lag.ms", 1}},
	"max.compaction.lag.ms":          {{"log.cleaner.max.compaction.lag.ms", 1}},
	"file.delete.delay.ms":           {{"log.segment.delete.delay.ms", 1}},
	"min.cleanable.dirty.ratio":      {{"log.cleaner.min.cleanable.ratio", 1}},
	"cleanup.policy":                 {{"log.cleanup.policy", 1}},
	"unclean.leader.election.enable": {{"unclean.leader.election.enable", 1}},
	"min.insync.replicas":            {{"min.insync.replicas", 1}},
	"compression.type":               {{"compression.type", 1}},
	"preallocate":                    {{"log.preallocate", 1}},
	"message.timestamp.type":         {{"log.message.timestamp.type", 1}},
	"local.retention.ms":             {{"log.local.retention.ms", 1}},
	"local.retention.bytes":          {{"log.local.retention.bytes", 1}},
}

// brokerConfigs are the broker-wide configs of the cleaner (and the
// producer-state expiry the cleaner honours), with Kafka's defaults.
var brokerConfigs = map[string]struct {
	kind kind
	def  string
}{
	"log.cleaner.enable":                  {kindBool, "true"},
	"log.cleaner.threads":                 {kindInt, "1"},
	"log.cleaner.dedupe.buffer.size":      {kindLong, "134217728"},
	"log.cleaner.io.buffer.size":          {kindInt, "524288"},
	"log.cleaner.io.buffer.load.factor":   {kindDouble, "0.9"},
	"log.cleaner.io.max.bytes.per.second": {kindDouble, "1.7976931348623157E308"},
	"log.cleaner.backoff.ms":              {kindLong, "15000"},
	"producer.id.expiration.ms":           {kindInt, "86400000"},
	"num.io.threads":                      {kindInt, "8"},
	"log.dirs":                            {kindString, ""},
	"log.dir":                             {kindString, "/tmp/kafka-logs"},
}

// brokerToTopic maps each broker synonym to its topic config and factor.
var brokerToTopic = func() map[string]struct {
	topic  string
	factor int64
	rank   int
} {
	m := map[string]struct {
		topic  string
		factor int64
		rank   int
	}{}
	for topic, syns := range topicSynonyms {
		for i, s := range syns {
			m[s.broker] = struct {
				topic  string
				factor int64
				rank   int
			}{topic, s.factor, i}
		}
	}
	return m
}()

// checkValue parses value as the config's kind and returns it normalised
// (a synonym's unit already converted by the caller). The error says what
// was expected.
func checkValue(k kind, value string) (string, error) {
	v := strings.TrimSpace(value)
	switch k {
	case kindLong:
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return "", fmt.Errorf("%q is not a 64-bit integer", value)
		}
	case kindInt:
		if _, err := strconv.ParseInt(v, 10, 32); err != nil {
			return "", fmt.Errorf("%q is not a 32-bit integer", value)
		}
	case kindDouble:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) {
			return "", fmt.Errorf("%q is not a number", value)
		}
	case kindBool:
		switch strings.ToLower(v) {
		case "true", "false":
			return strings.ToLower(v), nil
		}
		return "", fmt.Errorf("%q is not true or false", value)
	case kindList:
		var parts []string
		for _, p := range strings.Split(v, ",") {
			p = strings.ToLower(strings.TrimSpace(p))
			if p == "" {
				continue
			}
			if p != "compact" && p != "delete" {
				return "", fmt.Errorf("%q: cleanup.policy is a list of compact and delete", value)
			}
			parts = append(parts, p)
		}
		return strings.Join(parts, ","), nil
	}
	return v, nil
}

// convert applies a synonym's unit factor to a checked integer value.
func convert(value string, factor int64) (string, error) {
	if factor == 1 {
		return value, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
	if err != nil {
		return "", fmt.Errorf("%q is not an integer", value)
	}
	if n > math.MaxInt64/factor || n < math.MinInt64/factor {
		return "", fmt.Errorf("%q overflows when converted to ms", value)
	}
	return strconv.FormatInt(n*factor, 10), nil
}
