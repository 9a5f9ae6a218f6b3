// No-op stand-in written for cleanerlab (not Yammer's code): Kafka's storage classes
// register metrics with this API; a clean never reads them. Compiled only by
// scripts/build-kafka-classes.sh, never into cleanerlab.
package com.yammer.metrics.core;

import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

public class Timer implements Metric {
    public <T> T time(Callable<T> event) throws Exception { return event.call(); }
    public void update(long duration, TimeUnit unit) { }
    public long count() { return 0; }
}
