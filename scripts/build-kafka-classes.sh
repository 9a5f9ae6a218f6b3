#!/bin/bash
# build-kafka-classes.sh SRC OUT [COMMIT]
#
# Builds, from Apache Kafka's sources, the classes cleanerlab's kafka-jvm
# profile runs (Kafka's own log cleaner, org.apache.kafka.storage.internals.log.Cleaner,
# unmodified, and what it reaches), into OUT, so that
#   cleanerlab clean --profile kafka-jvm --kafka-libs OUT ...
# can load them. OUT must lie outside the repository: Kafka's code is never committed.
#
#   SRC     a Kafka source tree (with clients/src/main) or a git directory holding one
#           (then COMMIT, default HEAD, is extracted with git archive). Kafka 4.1 or later:
#           the cleaner is Java there (Scala's kafka.log.Cleaner before).
#   OUT     created; gets OUT/classes (Kafka's classes, kafka/kafka-version.properties with
#           the version from gradle.properties) and links to the jars they need.
#
# Needs a JDK 17 (javac) and Debian's jars under ${JARS:-/usr/share/java}:
#   apt-get install libzstd-jni-java libzstd-jni1 liblz4-java libsnappy-java libslf4j-java \
#     libjackson2-core-java libjackson2-databind-java libjackson2-annotations-java libargparse4j-java
# Compiled: Kafka's message generator (run once, a build tool), then with javac -sourcepath
# only the classes the driver's roots reach, from the modules clients, storage, storage/api,
# server-common, server, metadata, raft, transaction-coordinator. Third-party classes a clean
# never uses (Yammer metrics, Kafka's client telemetry, which
# needs OpenTelemetry; Jackson's Jdk8Module for the generator) come from our own no-op stubs in
# scripts/kafka-stubs*; they are compiled into OUT only. About 5 minutes on 2 cores.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
SRC=$1; OUT=$2; COMMIT=${3:-HEAD}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
J=${JARS:-/usr/share/java}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
case "$OUT/" in "$repo"/*) echo "build-kafka-classes: OUT $OUT is inside the repository; build Kafka's classes outside it" >&2; exit 2;; esac
command -v javac >/dev/null || { echo "build-kafka-classes: no javac (a JDK 17 is needed)" >&2; exit 2; }
for j in slf4j-api slf4j-nop zstd-jni lz4-java snappy-java jackson-core jackson-databind jackson-annotations argparse4j; do
  [ -e "$J/$j.jar" ] || { echo "build-kafka-classes: $J/$j.jar missing: install the Debian packages named in this script's header" >&2; exit 2; }
done
work=$OUT/build; rm -rf "$work"; mkdir -p "$work/src"
modules="clients/src/main storage/src/main storage/api/src/main server-common/src/main server/src/main metadata/src/main transaction-coordinator/src/main raft/src/main generator gradle.properties"
if [ -d "$SRC/clients/src/main" ]; then
  for m in $modules; do mkdir -p "$work/src/$(dirname $m)"; cp -r "$SRC/$m" "$work/src/$m"; done
elif git --git-dir "$SRC" rev-parse -q --verify "$COMMIT^{commit}" >/dev/null 2>&1; then
  git --git-dir "$SRC" archive "$COMMIT" $modules | tar -x -C "$work/src"
else
  echo "build-kafka-classes: $SRC is neither a Kafka source tree (clients/src/main) nor a git directory holding $COMMIT" >&2; exit 2
fi
S=$work/src
[ -f "$S/storage/src/main/java/org/apache/kafka/storage/internals/log/Cleaner.java" ] || {
  echo "build-kafka-classes: $SRC has no storage/.../log/Cleaner.java: Kafka before 4.1 (Scala cleaner) is not supported" >&2; exit 2; }
version=$(sed -n 's/^version=//p' "$S/gradle.properties")
commit=$(git --git-dir "$SRC" rev-parse "$COMMIT" 2>/dev/null || echo unknown)
echo "building Kafka $version ($commit) into $OUT"

# 1. Kafka's message generator: generates org.apache.kafka.common.message and the remote-log
#    metadata records the storage code uses.
GCP=$J/jackson-core.jar:$J/jackson-databind.jar:$J/jackson-annotations.jar:$J/argparse4j.jar
mkdir -p "$work/gen-classes" "$work/generated"
javac -proc:none -nowarn -d "$work/gen-classes" -cp "$GCP" \
  $(find "$S/generator/src/main/java" "$here/kafka-stubs-gen" -name '*.java' | grep -v /checker/)
gen() { java -cp "$work/gen-classes:$GCP" org.apache.kafka.message.MessageGenerator "$@"; }
gen -p org.apache.kafka.common.message -o "$work/generated/org/apache/kafka/common/message" \
  -i "$S/clients/src/main/resources/common/message" -t ApiMessageTypeGenerator -m MessageDataGenerator JsonConverterGenerator
gen -p org.apache.kafka.server.log.remote.metadata.storage.generated \
  -o "$work/generated/org/apache/kafka/server/log/remote/metadata/storage/generated" \
  -i "$S/storage/src/main/resources/message" -m MessageDataGenerator JsonConverterGenerator \
  -t MetadataRecordTypeGenerator MetadataJsonConvertersGenerator

# 2. The classes the kafka-jvm driver names (its roots) and everything they reach.
SP=$here/kafka-stubs:$S/clients/src/main/java:$work/generated:$S/storage/src/main/java:$S/storage/api/src/main/java
SP=$SP:$S/server-common/src/main/java:$S/server/src/main/java:$S/metadata/src/main/java:$S/raft/src/main/java
SP=$SP:$S/transaction-coordinator/src/main/java
CP=$(for j in slf4j-api zstd-jni lz4-java snappy-java jackson-core jackson-databind jackson-annotations; do printf '%s:' "$J/$j.jar"; done)
roots=""
for c in storage/internals/log/Cleaner storage/internals/log/UnifiedLog storage/internals/log/LogCleanerManager \
  storage/internals/log/LogToClean storage/internals/log/CleanerStats storage/internals/log/SkimpyOffsetMap \
  storage/internals/log/LogConfig storage/internals/log/ProducerStateManagerConfig storage/internals/log/LogDirFailureChannel \
  storage/internals/log/LogSegment storage/internals/checkpoint/OffsetCheckpointFile storage/internals/utils/Throttler \
  storage/log/metrics/BrokerTopicStats; do roots="$roots $S/storage/src/main/java/org/apache/kafka/$c.java"; done
roots="$roots $S/server-common/src/main/java/org/apache/kafka/server/util/KafkaScheduler.java"
roots="$roots $S/clients/src/main/java/org/apache/kafka/common/utils/AppInfoParser.java"
rm -rf "$OUT/classes"; mkdir -p "$OUT/classes/kafka"
javac -proc:none -nowarn -encoding UTF-8 -d "$OUT/classes" -cp "$CP" -sourcepath "$SP" $roots
printf 'version=%s\ncommitId=%s\n' "$version" "${commit:0:16}" > "$OUT/classes/kafka/kafka-version.properties"
# 3. The jars Kafka's classes need at run time, linked beside them (slf4j-nop: Kafka's log
#    lines are dropped, as the lab's own profiles print none).
for j in slf4j-api slf4j-nop zstd-jni lz4-java snappy-java jackson-core jackson-databind jackson-annotations; do
  ln -sf "$(readlink -f "$J/$j.jar")" "$OUT/$j.jar"
done
rm -rf "$work"
echo "built: $OUT (use: --profile kafka-jvm --kafka-libs $OUT)"
