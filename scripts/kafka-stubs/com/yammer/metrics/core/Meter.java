// No-op stand-in written for cleanerlab (not Yammer's code): Kafka's storage classes
// register metrics with this API; a clean never reads them. Compiled only by
// scripts/build-kafka-classes.sh, never into cleanerlab.
package com.yammer.metrics.core;

public class Meter implements Metric {
    private long count;

    public void mark() { count++; }
    public void mark(long n) { count += n; }
    public long count() { return count; }
    public double oneMinuteRate() { return 0; }
    public double fiveMinuteRate() { return 0; }
    public double fifteenMinuteRate() { return 0; }
    public double meanRate() { return 0; }
}
