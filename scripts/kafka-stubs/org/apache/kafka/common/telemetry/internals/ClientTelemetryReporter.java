// No-op stand-in written for cleanerlab (not Kafka's class of this name,
// which needs OpenTelemetry's protobuf classes): client metrics push is
// reachable from the config classes a clean loads, never used by it.
// Compiled only by scripts/build-kafka-classes.sh, never into cleanerlab.
package org.apache.kafka.common.telemetry.internals;

import org.apache.kafka.common.utils.Time;

import java.util.Map;

public class ClientTelemetryReporter {
    public ClientTelemetryReporter(Time time) { }

    public void configure(Map<String, ?> configs) { }
}
