// CheckJava: checks that java.util.zip.Deflater, as GZIPOutputStream uses
// it at Kafka's default gzip level (new Deflater(DEFAULT_COMPRESSION, true):
// raw deflate), writes the golden streams oracle.c made with zlib: for each
// golden stream named on the command line (NAME.deflate, or a packed file
// like corpus.bin: 4-byte big-endian lengths and streams), it inflates the
// stream, deflates the result again and compares. Only for checking the
// golden streams; not built by Go. Run:
//   java CheckJava.java deflate/*.deflate corpus.bin
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

public class CheckJava {
    public static void main(String[] args) throws Exception {
        int bad = 0, n = 0;
        for (String a : args) {
            byte[] data = Files.readAllBytes(Path.of(a));
            List<byte[]> streams = new ArrayList<>();
            if (a.endsWith(".deflate")) {
                streams.add(data);
            } else {
                ByteBuffer b = ByteBuffer.wrap(data);
                while (b.hasRemaining()) {
                    byte[] s = new byte[b.getInt()];
                    b.get(s);
                    streams.add(s);
                }
            }
            int same = 0;
            for (byte[] want : streams) {
                Inflater inf = new Inflater(true);
                inf.setInput(want);
                ByteArrayOutputStream src = new ByteArrayOutputStream();
                byte[] buf = new byte[65536];
                while (!inf.finished()) {
                    int k = inf.inflate(buf);
                    if (k == 0 && (inf.needsInput() || inf.needsDictionary())) break;
                    src.write(buf, 0, k);
                }
                inf.end();
                Deflater def = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
                def.setInput(src.toByteArray());
                def.finish();
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                while (!def.finished()) {
                    int k = def.deflate(buf);
                    got.write(buf, 0, k);
                }
                def.end();
                if (Arrays.equals(got.toByteArray(), want)) same++;
                n++;
            }
            bad += streams.size() - same;
            System.out.println(a + ": " + same + " of " + streams.size() + " same");
        }
        System.out.println(n + " streams, " + bad + " differ");
        System.exit(bad == 0 ? 0 : 1);
    }
}
