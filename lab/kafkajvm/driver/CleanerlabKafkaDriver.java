// cleanerlab's driver of Apache Kafka's own log cleaner (the kafka-jvm
// profile). This file is cleanerlab's code; Kafka's classes are loaded from
// the classpath the user gives (--kafka-libs), never shipped with it.
// lab/kafkajvm embeds it and compiles it with javac against that classpath.
//
// It holds one Cleaner as one LogCleaner.CleanerThread of a broker does
// (org.apache.kafka.storage.internals.log.LogCleaner: the SkimpyOffsetMap of
// log.cleaner.dedupe.buffer.size / threads bytes allocated, so zeroed and
// touched, once at start; I/O buffers of log.cleaner.io.buffer.size / threads
// / 2; the Throttler at log.cleaner.io.max.bytes.per.second) and cleans one
// partition directory per command, as CleanerThread.cleanLog does.
//
// Arguments (key=value): dedupe, io, load, hash, maxMessage, ioMaxBytesPerSecond, threads.
// Protocol, one line each way:
//   start         -> "ready version=V commit=C java=J"
//   clean DIR NOW_MS [topic.config=value ...]
//                 -> "done k=v ..." (see clean), "aborted k=v ..." or "error MESSAGE" (newlines as " | ")
//   abort N       -> nothing: the N-th clean (counting from 1), if it is still running, is aborted at
//                    Kafka's next checkDone, as LogCleaner aborts a clean (LogCleaningAbortedException:
//                    cleanSegments deletes its .cleaned segment; the groups already swapped in stay; the
//                    cleaner checkpoint is not written); it is answered "aborted"
//   quit          -> "bye"
// End of input (cleanerlab gone) aborts the clean in progress the same way, then the driver exits.
// A reader thread takes the lines, so that abort arrives while a clean runs.
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile;
import org.apache.kafka.storage.internals.log.Cleaner;
import org.apache.kafka.storage.internals.log.CleanerStats;
import org.apache.kafka.storage.internals.log.LogCleanerManager;
import org.apache.kafka.storage.internals.log.LogCleaningAbortedException;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogToClean;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.SkimpyOffsetMap;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.utils.Throttler;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

public class CleanerlabKafkaDriver {
    /** The log's clock: "now" fixed per clean (delete horizons, producer expiry), as the lab's --now-ms. */
    static final class FixedTime implements Time {
        volatile long nowMs;

        public long milliseconds() { return nowMs; }

        public long nanoseconds() { return System.nanoTime(); }

        public void sleep(long ms) { Time.SYSTEM.sleep(ms); }

        public void waitObject(Object obj, java.util.function.Supplier<Boolean> cond, long deadlineMs) throws InterruptedException {
            Time.SYSTEM.waitObject(obj, cond, deadlineMs);
        }
    }

    static final FixedTime LOG_TIME = new FixedTime();
    static KafkaScheduler scheduler;
    static BrokerTopicStats topicStats;
    static Cleaner cleaner;
    /** The clean being run (1, 2, ...), the one an "abort N" asked for, and whether input ended. */
    static volatile long cleanSeq, abortSeq;
    static volatile boolean inputEnded;

    /** Cleaner's checkDone (LogCleaner.CleanerThread.checkDone): throws when this clean is to stop. */
    static void checkDone(TopicPartition tp) {
        if (inputEnded || abortSeq == cleanSeq) throw new LogCleaningAbortedException();
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String s : args) {
            int i = s.indexOf('=');
            if (i < 0) throw new IllegalArgumentException("argument " + s + " is not key=value");
            a.put(s.substring(0, i), s.substring(i + 1));
        }
        long dedupe = Long.parseLong(a.getOrDefault("dedupe", "134217728"));
        int io = Integer.parseInt(a.getOrDefault("io", "524288"));
        double load = Double.parseDouble(a.getOrDefault("load", "0.9"));
        String hash = a.getOrDefault("hash", "MD5");
        int maxMessage = Integer.parseInt(a.getOrDefault("maxMessage", "1048588"));
        double ioRate = Double.parseDouble(a.getOrDefault("ioMaxBytesPerSecond", "1.7976931348623157E308"));
        int threads = Integer.parseInt(a.getOrDefault("threads", "1"));
        scheduler = new KafkaScheduler(1, true, "cleanerlab-kafka-scheduler-");
        scheduler.startup();
        topicStats = new BrokerTopicStats();
        // LogCleaner: new Throttler(config.maxIoBytesPerSecond, 300, "cleaner-io", "bytes", time), and per
        // CleanerThread: new Cleaner(id, new SkimpyOffsetMap((int) Math.min(dedupeBufferSize / numThreads,
        // Integer.MAX_VALUE), hashAlgorithm), ioBufferSize / numThreads / 2, maxMessageSize, dedupeBufferLoadFactor,
        // throttler, time, this::checkDone). The cleaner's clock is the system's: it only times CleanerStats.
        Throttler throttler = new Throttler(ioRate, 300, "cleaner-io", "bytes", Time.SYSTEM);
        cleaner = new Cleaner(0, new SkimpyOffsetMap((int) Math.min(dedupe / threads, Integer.MAX_VALUE), hash),
                io / threads / 2, maxMessage, load, throttler, Time.SYSTEM, CleanerlabKafkaDriver::checkDone);
        System.out.printf(Locale.ROOT, "ready version=%s commit=%s java=%s%n", AppInfoParser.getVersion(),
                AppInfoParser.getCommitId(), System.getProperty("java.version"));
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        LinkedBlockingQueue<String> commands = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try {
                String l;
                while ((l = in.readLine()) != null) {
                    String t = l.trim();
                    if (t.startsWith("abort ")) {
                        abortSeq = Long.parseLong(t.substring(6).trim());
                    } else {
                        commands.add(t);
                    }
                }
            } catch (Exception e) {
                // A broken input is its end.
            }
            inputEnded = true;
            commands.add("quit");
        }, "cleanerlab-driver-input");
        reader.setDaemon(true);
        reader.start();
        while (true) {
            String line = commands.take();
            String[] f = line.split("\\s+");
            try {
                switch (f[0]) {
                    case "clean":
                        cleanSeq++;
                        if (f.length < 3) throw new IllegalArgumentException("clean DIR NOW_MS [k=v ...]");
                        clean(new File(f[1]), Long.parseLong(f[2]), f);
                        break;
                    case "quit":
                        scheduler.shutdown();
                        System.out.println("bye");
                        System.out.flush();
                        System.exit(0);
                        break;
                    default:
                        System.out.println("error unknown command " + f[0]);
                }
            } catch (Throwable t) {
                StringWriter sw = new StringWriter();
                t.printStackTrace(new PrintWriter(sw));
                System.out.println("error " + sw.toString().trim().replaceAll("\\s*\\n\\s*", " | "));
            }
            System.out.flush();
        }
    }

    static Map<TopicPartition, Long> readCheckpoint(File root, String name) throws Exception {
        File f = new File(root, name);
        if (!f.exists()) return new HashMap<>();
        return new OffsetCheckpointFile(f, null).read();
    }

    /**
     * Opens dir as LogManager.loadLog does after an unclean shutdown (UnifiedLog.create: segments
     * recovered from the recovery-point checkpoint, producer state rebuilt), sets the high
     * watermark to the log end, takes the range from LogCleanerManager.cleanableOffsets with the
     * root's cleaner-offset-checkpoint, and times Cleaner.doClean alone (offset map, cleanSegments
     * with their flush, replaceSegments): its wall time, the process's CPU time (every JVM thread:
     * GC and JIT included), this thread's CPU time and its user-mode part (the rest is the kernel's
     * work for the clean's reads, writes and fsyncs) and the collectors' time. Then writes the
     * cleaner-offset-checkpoint as LogCleanerManager.doneCleaning, closes the log and deletes the
     * replaced *.deleted files a broker deletes file.delete.delay.ms later (none of it timed).
     */
    static void clean(File dir, long nowMs, String[] f) throws Exception {
        LOG_TIME.nowMs = nowMs;
        Map<String, Object> props = new HashMap<>();
        props.put("cleanup.policy", "compact");
        for (int i = 3; i < f.length; i++) {
            int j = f[i].indexOf('=');
            if (j < 0) throw new IllegalArgumentException("topic config " + f[i] + " is not key=value");
            props.put(f[i].substring(0, j), f[i].substring(j + 1));
        }
        LogConfig cfg = new LogConfig(props);
        File root = dir.getAbsoluteFile().getParentFile();
        TopicPartition tp = UnifiedLog.parseTopicPartitionName(dir);
        long recoveryPoint = readCheckpoint(root, "recovery-point-offset-checkpoint").getOrDefault(tp, 0L);
        int producerIdExpirationMs = Integer.parseInt(String.valueOf(props.getOrDefault("producer.id.expiration.ms", "86400000")));
        UnifiedLog log = UnifiedLog.create(dir, cfg, 0L, recoveryPoint, scheduler, topicStats, LOG_TIME,
                900000 /* transaction.max.timeout.ms */, new ProducerStateManagerConfig(producerIdExpirationMs, false),
                600000 /* producer.id.expiration.check.interval.ms */, new LogDirFailureChannel(1), false, Optional.empty());
        String answer;
        try {
            checkDone(tp); // an abort that came before the log was open
            answer = cleanOpen(log, root, tp, nowMs);
        } catch (LogCleaningAbortedException e) {
            answer = "aborted topicPartition=" + tp;
        } finally {
            log.close();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir.toPath(), "*.deleted")) {
                for (Path p : ds) Files.deleteIfExists(p);
            }
        }
        // Answered once the log is closed: the caller may then move or remove the directory.
        System.out.println(answer);
    }

    static long gcMillis() {
        long t = 0;
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) t += Math.max(0, b.getCollectionTime());
        return t;
    }

    /** CleanerStats.mapBytesRead has no accessor: read by reflection; -1 when it cannot be. */
    static long mapBytesRead(CleanerStats s) {
        try {
            java.lang.reflect.Field fld = CleanerStats.class.getDeclaredField("mapBytesRead");
            fld.setAccessible(true);
            return fld.getLong(s);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return -1;
        }
    }

    /** The clean of an open log (see clean); returns the "done" answer. */
    static String cleanOpen(UnifiedLog log, File root, TopicPartition tp, long nowMs) throws Exception {
        log.updateHighWatermark(log.logEndOffset());
        Optional<Long> last = Optional.ofNullable(readCheckpoint(root, "cleaner-offset-checkpoint").get(tp));
        LogCleanerManager.OffsetsToClean o = LogCleanerManager.cleanableOffsets(log, last, nowMs);
        LogToClean ltc = new LogToClean(log, o.firstDirtyOffset(), o.firstUncleanableDirtyOffset(), false);
        long cleanable = ltc.cleanableBytes();
        if (cleanable == 0) {
            return String.format(Locale.ROOT, "done cleaned=false firstDirty=%d firstUncleanable=%d cleanableBytes=0",
                    o.firstDirtyOffset(), o.firstUncleanableDirtyOffset());
        }
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        ThreadMXBean th = ManagementFactory.getThreadMXBean();
        long gc0 = gcMillis(), cpu0 = os.getProcessCpuTime(), thr0 = th.getCurrentThreadCpuTime(), usr0 = th.getCurrentThreadUserTime();
        long t0 = System.nanoTime();
        Map.Entry<Long, CleanerStats> r = cleaner.doClean(ltc, nowMs);
        long wallNs = System.nanoTime() - t0;
        long thrNs = th.getCurrentThreadCpuTime() - thr0, usrNs = th.getCurrentThreadUserTime() - usr0;
        long cpuNs = os.getProcessCpuTime() - cpu0, gcMs = gcMillis() - gc0;
        CleanerStats s = r.getValue();
        Map<TopicPartition, Long> ck = readCheckpoint(root, "cleaner-offset-checkpoint");
        ck.put(tp, r.getKey());
        new OffsetCheckpointFile(new File(root, "cleaner-offset-checkpoint"), null).write(ck);
        return String.format(Locale.ROOT, "done cleaned=true topicPartition=%s firstDirty=%d firstUncleanable=%d cleanableBytes=%d endOffset=%d"
                        + " wallNs=%d processCpuNs=%d threadCpuNs=%d threadUserNs=%d gcMs=%d startMs=%d mapCompleteMs=%d endMs=%d"
                        + " mapBytesRead=%d mapMessagesRead=%d bytesRead=%d bytesWritten=%d messagesRead=%d messagesWritten=%d"
                        + " invalidMessagesRead=%d bufferUtilization=%s mapEntries=%d",
                tp, o.firstDirtyOffset(), o.firstUncleanableDirtyOffset(), cleanable, r.getKey(),
                wallNs, cpuNs, thrNs, usrNs, gcMs, s.startTime(), s.startTime() + Math.round(s.elapsedIndexSecs() * 1000), s.endTime(),
                mapBytesRead(s), s.mapMessagesRead(), s.bytesRead(), s.bytesWritten(), s.messagesRead(), s.messagesWritten(),
                s.invalidMessagesRead(), Double.toString(s.bufferUtilization()), cleaner.offsetMap().size());
    }
}
