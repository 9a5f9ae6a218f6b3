// KafkaFrames: writes each input file as Kafka's own gzip codec writes a
// batch's records: Compression.gzip().build().wrapForOutput(...) for magic 2
// (Kafka's GzipOutputStream, a java.util.zip.GZIPOutputStream with an 8 KiB
// buffer at the default level, behind a 16 KiB BufferedOutputStream), to
// NAME.kafka. Only for making the golden streams; not built by Go. Run with
// Kafka's classes (scripts/build-kafka-classes.sh):
//   java -cp /root/kafka-classes/classes KafkaFrames.java frame/*
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.utils.ByteBufferOutputStream;

public class KafkaFrames {
    public static void main(String[] args) throws Exception {
        Compression gzip = Compression.gzip().build();
        for (String a : args) {
            if (a.endsWith(".kafka")) continue;
            byte[] src = Files.readAllBytes(Path.of(a));
            ByteBufferOutputStream buf = new ByteBufferOutputStream(64);
            try (OutputStream out = gzip.wrapForOutput(buf, RecordBatch.MAGIC_VALUE_V2)) {
                // Uneven writes, as a batch's records arrive: the stream
                // does not depend on them.
                int off = 0;
                for (int k = 1; off < src.length; k = k * 7 % 1001 + 1) {
                    int n = Math.min(k, src.length - off);
                    out.write(src, off, n);
                    off += n;
                }
            }
            ByteBuffer b = buf.buffer();
            b.flip();
            byte[] framed = Arrays.copyOf(b.array(), b.limit());
            Files.write(Path.of(a + ".kafka"), framed);
            System.out.println(a + " " + src.length + " -> " + framed.length);
        }
    }
}
