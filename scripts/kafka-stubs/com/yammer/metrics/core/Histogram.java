// No-op stand-in written for cleanerlab (not Yammer's code): Kafka's storage classes
// register metrics with this API; a clean never reads them. Compiled only by
// scripts/build-kafka-classes.sh, never into cleanerlab.
package com.yammer.metrics.core;

public class Histogram implements Metric {
    private long count;

    public void update(int v) { count++; }
    public void update(long v) { count++; }
    public long count() { return count; }
    public double max() { return 0; }
    public double min() { return 0; }
    public double mean() { return 0; }
}
