// No-op stand-in written for cleanerlab (not Kafka's class of this name,
// which needs OpenTelemetry's protobuf classes): only PushTelemetryRequest,
// which a clean never builds, calls it. Compiled only by
// scripts/build-kafka-classes.sh, never into cleanerlab.
package org.apache.kafka.common.telemetry.internals;

import org.apache.kafka.common.record.CompressionType;

import java.nio.ByteBuffer;

public class ClientTelemetryUtils {
    public static ByteBuffer decompress(ByteBuffer metrics, CompressionType compressionType) {
        throw new UnsupportedOperationException("client telemetry is not built for cleanerlab's kafka-jvm profile");
    }
}
