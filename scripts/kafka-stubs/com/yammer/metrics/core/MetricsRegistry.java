// No-op stand-in written for cleanerlab (not Yammer's code): Kafka's storage classes
// register metrics with this API; a clean never reads them. Compiled only by
// scripts/build-kafka-classes.sh, never into cleanerlab.
package com.yammer.metrics.core;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

public class MetricsRegistry {
    private final Map<MetricName, Metric> metrics = Collections.synchronizedMap(new TreeMap<>());

    public <T> Gauge<T> newGauge(MetricName name, Gauge<T> g) { metrics.put(name, g); return g; }
    public Meter newMeter(MetricName name, String eventType, TimeUnit unit) { return add(name, new Meter()); }
    public Histogram newHistogram(MetricName name, boolean biased) { return add(name, new Histogram()); }
    public Timer newTimer(MetricName name, TimeUnit durationUnit, TimeUnit rateUnit) { return add(name, new Timer()); }
    public void removeMetric(MetricName name) { metrics.remove(name); }
    public Map<MetricName, Metric> allMetrics() { return Collections.unmodifiableMap(new TreeMap<>(metrics)); }
    public SortedMap<String, SortedMap<MetricName, Metric>> groupedMetrics() { return new TreeMap<>(); }
    public void shutdown() { }

    @SuppressWarnings("unchecked")
    private <M extends Metric> M add(MetricName name, M m) {
        Metric old = metrics.putIfAbsent(name, m);
        return old != null ? (M) old : m;
    }
}
