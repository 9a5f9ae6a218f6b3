// No-op stand-in written for cleanerlab (not Yammer's code): Kafka's storage classes
// register metrics with this API; a clean never reads them. Compiled only by
// scripts/build-kafka-classes.sh, never into cleanerlab.
package com.yammer.metrics.core;

import java.util.Objects;

public class MetricName implements Comparable<MetricName> {
    private final String group, type, name, scope, mBeanName;

    public MetricName(String group, String type, String name, String scope, String mBeanName) {
        this.group = group;
        this.type = type;
        this.name = name;
        this.scope = scope;
        this.mBeanName = mBeanName;
    }

    public MetricName(String group, String type, String name) {
        this(group, type, name, null, group + ":type=" + type + ",name=" + name);
    }

    public String getGroup() { return group; }
    public String getType() { return type; }
    public String getName() { return name; }
    public String getScope() { return scope; }
    public boolean hasScope() { return scope != null; }
    public String getMBeanName() { return mBeanName; }

    @Override
    public boolean equals(Object o) {
        return o instanceof MetricName && Objects.equals(mBeanName, ((MetricName) o).mBeanName);
    }

    @Override
    public int hashCode() { return Objects.hashCode(mBeanName); }

    @Override
    public String toString() { return mBeanName; }

    @Override
    public int compareTo(MetricName o) { return mBeanName.compareTo(o.mBeanName); }
}
