package kafkajvm

import (
	"os"

	"github.com/cleanerlab/cleanerlab/settings"
)

// LibsEnv is the environment variable of --kafka-libs' default.
const LibsEnv = "CLEANERLAB_KAFKA_LIBS"

// DefaultCommandOptions are the defaults of Kafka's cleaner's flags: the
// classes at $CLEANERLAB_KAFKA_LIBS, one warm-up clean, one round.
func DefaultCommandOptions() CommandOptions {
	return CommandOptions{Libs: os.Getenv(LibsEnv), Warmup: 1, Rounds: 1}
}

// jvmFlags are the JVM's flags, of run and clean alike; libsFor says what
// --kafka-libs is for.
func jvmFlags(libsFor string) []settings.Setting[CommandOptions] {
	return []settings.Setting[CommandOptions]{
		{Name: "kafka-libs", Flag: "kafka-libs", DefaultText: "$" + LibsEnv,
			Doc: "Kafka's classes for " + libsFor + ": the libs/ of a Kafka 4.1+ installation, or scripts/build-kafka-classes.sh's output (default $" + LibsEnv + ")",
			Var: func(o *CommandOptions) settings.Value { return settings.String(&o.Libs) }},
		settings.Flag("kafka-java-opts", "the JVM options of Kafka's cleaner, blank-separated (default: a broker's G1 options and a pre-touched heap of max(1 GiB, dedupe buffer + 512 MiB))",
			func(o *CommandOptions) settings.Value { return settings.String(&o.JavaOpts) }),
		settings.Flag("kafka-warmup", "cleans of a throwaway copy Kafka's JVM does before the measured ones (its JIT warm)",
			func(o *CommandOptions) settings.Value { return settings.Count(&o.Warmup) }),
	}
}

// RunFlags are run's flags of Kafka's own cleaner (--profile kafka-jvm).
var RunFlags = settings.MustRegistry(DefaultCommandOptions, jvmFlags("--profile kafka-jvm"))

// CleanFlags are clean's flags of Kafka's own cleaner (--profile
// kafka-jvm, --compare-kafka).
var CleanFlags = settings.MustRegistry(DefaultCommandOptions, jvmFlags("--profile kafka-jvm and --compare-kafka"),
	[]settings.Setting[CommandOptions]{
		settings.Flag("compare-kafka", "clean copies of the partition with Kafka's own cleaner (--kafka-libs) and with --profile's settings, --rounds times interleaved, and diff every segment file byte for byte",
			func(o *CommandOptions) settings.Value { return settings.Bool(&o.Compare) }),
		settings.Flag("rounds", "with --compare-kafka: measured cleans of each side, interleaved",
			func(o *CommandOptions) settings.Value { return settings.Count(&o.Rounds) }),
	})
