// CheckJava: compresses each input file with lz4-java's
// LZ4Factory.fastestInstance().fastCompressor() (what Kafka's
// Lz4BlockOutputStream uses at the default level) and checks that the block
// equals the golden block out/<name>.lz4block made by oracle.c. Only for
// checking the golden blocks; not built by Go. Run:
//   java -cp /usr/share/java/lz4-java.jar CheckJava.java in/*
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

public class CheckJava {
    public static void main(String[] args) throws Exception {
        LZ4Factory factory = LZ4Factory.fastestInstance();
        System.out.println("factory: " + factory);
        LZ4Compressor c = factory.fastCompressor();
        System.out.println("compressor: " + c);
        int bad = 0;
        for (String a : args) {
            Path in = Path.of(a);
            byte[] src = Files.readAllBytes(in);
            byte[] dst = new byte[c.maxCompressedLength(src.length)];
            int n = c.compress(src, 0, src.length, dst, 0);
            byte[] want = Files.readAllBytes(Path.of("out", in.getFileName() + ".lz4block"));
            boolean same = Arrays.equals(Arrays.copyOf(dst, n), want);
            if (!same) bad++;
            System.out.println(a + " " + src.length + " -> " + n + (same ? " same" : " DIFFERS"));
        }
        System.exit(bad == 0 ? 0 : 1);
    }
}
