// No-op stand-in written for cleanerlab (not Yammer's code): Kafka's storage classes
// register metrics with this API; a clean never reads them. Compiled only by
// scripts/build-kafka-classes.sh, never into cleanerlab.
package com.yammer.metrics.reporting;

import com.yammer.metrics.core.Metric;
import com.yammer.metrics.core.MetricName;
import com.yammer.metrics.core.MetricsRegistry;

public class JmxReporter {
    private final MetricsRegistry registry;

    public JmxReporter(MetricsRegistry registry) { this.registry = registry; }
    public void start() { }
    public void shutdown() { }
    public MetricsRegistry getMetricsRegistry() { return registry; }
    public void onMetricAdded(MetricName name, Metric metric) { }
    public void onMetricRemoved(MetricName name) { }
}
