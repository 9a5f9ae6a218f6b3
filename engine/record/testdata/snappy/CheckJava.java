// CheckJava: checks that snappy-java's Snappy.compress (what Kafka's
// SnappyOutputStream calls for each block) writes the golden blocks that
// oracle.c made with libsnappy: for each golden block named on the command
// line (NAME.snappy, or a packed file like corpus.bin: 4-byte big-endian
// lengths and blocks), it decodes the block with snappy-java, compresses
// the result again and compares. Only for checking the golden blocks; not
// built by Go. Run:
//   java -cp /usr/share/java/snappy-java.jar CheckJava.java block/*.snappy corpus.bin
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.xerial.snappy.Snappy;

public class CheckJava {
    public static void main(String[] args) throws Exception {
        System.out.println("snappy-java " + Snappy.getNativeLibraryVersion());
        int bad = 0, n = 0;
        for (String a : args) {
            byte[] data = Files.readAllBytes(Path.of(a));
            List<byte[]> blocks = new ArrayList<>();
            if (a.endsWith(".snappy")) {
                blocks.add(data);
            } else {
                ByteBuffer b = ByteBuffer.wrap(data);
                while (b.hasRemaining()) {
                    byte[] block = new byte[b.getInt()];
                    b.get(block);
                    blocks.add(block);
                }
            }
            int same = 0;
            for (byte[] want : blocks) {
                byte[] src = Snappy.uncompress(want);
                byte[] got = Snappy.compress(src);
                if (Arrays.equals(got, want)) same++;
                n++;
            }
            bad += blocks.size() - same;
            System.out.println(a + ": " + same + " of " + blocks.size() + " same");
        }
        System.out.println(n + " blocks, " + bad + " differ");
        System.exit(bad == 0 ? 0 : 1);
    }
}
