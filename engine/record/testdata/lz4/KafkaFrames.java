// KafkaFrames: writes each input file as Kafka's own
// org.apache.kafka.common.compress.Lz4BlockOutputStream frames it at the
// default level (CompressionType.LZ4.defaultLevel(), the level the cleaner
// rebuilds batches with): NAME.kafka with the magic 2 header checksum and
// NAME.kafka-v0 with the magic 0 one (useBrokenFlagDescriptorChecksum).
// Only for making the golden frames; not built by Go. Run with Kafka's
// classes (scripts/build-kafka-classes.sh) and lz4-java:
//   java -cp /root/kafka-classes/classes:/usr/share/java/lz4-java.jar KafkaFrames.java frame/*
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.compress.Lz4BlockOutputStream;
import org.apache.kafka.common.record.CompressionType;

public class KafkaFrames {
    public static void main(String[] args) throws Exception {
        int level = CompressionType.LZ4.defaultLevel();
        for (String a : args) {
            if (a.endsWith(".kafka") || a.endsWith(".kafka-v0")) continue;
            byte[] src = Files.readAllBytes(Path.of(a));
            for (boolean v0 : new boolean[] {false, true}) {
                ByteArrayOutputStream buf = new ByteArrayOutputStream();
                try (Lz4BlockOutputStream out = new Lz4BlockOutputStream(buf, level, v0)) {
                    // Uneven writes, as a batch's records arrive: the frame's
                    // blocks do not depend on them.
                    int off = 0;
                    for (int k = 1; off < src.length; k = k * 7 % 1001 + 1) {
                        int n = Math.min(k, src.length - off);
                        out.write(src, off, n);
                        off += n;
                    }
                }
                Files.write(Path.of(a + (v0 ? ".kafka-v0" : ".kafka")), buf.toByteArray());
            }
            System.out.println(a + " " + src.length + " level " + level);
        }
    }
}
