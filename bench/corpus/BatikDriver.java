// Corpus driver: batik rasterizes the SVG files listed in a file, ROUNDS times,
// as DaCapo's batik does; prints a checksum of every PNG it wrote.
// Usage: BatikDriver ROUNDS LISTFILE SIZE
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.file.Files;
import java.util.List;
import java.util.zip.CRC32;
import org.apache.batik.transcoder.SVGAbstractTranscoder;
import org.apache.batik.transcoder.TranscoderInput;
import org.apache.batik.transcoder.TranscoderOutput;
import org.apache.batik.transcoder.image.PNGTranscoder;

public class BatikDriver {
    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        List<String> files = Files.readAllLines(new File(args[1]).toPath());
        float size = Float.parseFloat(args[2]);
        CRC32 crc = new CRC32();
        int ok = 0, failed = 0;
        for (int r = 0; r < rounds; r++) {
            for (String f : files) {
                if (f.isEmpty()) continue;
                PNGTranscoder t = new PNGTranscoder();
                t.addTranscodingHint(SVGAbstractTranscoder.KEY_WIDTH, size);
                t.addTranscodingHint(SVGAbstractTranscoder.KEY_HEIGHT, size);
                ByteArrayOutputStream png = new ByteArrayOutputStream();
                try {
                    t.transcode(new TranscoderInput(new File(f).toURI().toString()),
                                new TranscoderOutput(png));
                    crc.update(png.toByteArray());
                    ok++;
                } catch (Exception e) {
                    failed++; // the same files fail in every run: part of the checksum
                }
            }
        }
        System.out.println("rasterized " + ok + ", failed " + failed);
        System.out.println("checksum: " + Long.toHexString(crc.getValue()) + "-" + ok + "-" + failed);
    }
}
