// Corpus driver: xalan compiles a stylesheet and transforms a document with it,
// ROUNDS times (DaCapo's xalan is such a loop); prints a checksum of the outputs.
// Usage: XalanDriver ROUNDS DOC.xml STYLE.xsl
import java.io.File;
import java.io.StringWriter;
import java.util.zip.CRC32;
import javax.xml.transform.Templates;
import javax.xml.transform.Transformer;
import javax.xml.transform.stream.StreamResult;
import javax.xml.transform.stream.StreamSource;
import org.apache.xalan.processor.TransformerFactoryImpl;

public class XalanDriver {
    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        File doc = new File(args[1]), style = new File(args[2]);
        TransformerFactoryImpl factory = new TransformerFactoryImpl();
        CRC32 crc = new CRC32();
        long chars = 0;
        for (int r = 0; r < rounds; r++) {
            Templates templates = factory.newTemplates(new StreamSource(style));
            Transformer t = templates.newTransformer();
            t.setParameter("round", Integer.toString(r % 3));
            StringWriter out = new StringWriter();
            t.transform(new StreamSource(doc), new StreamResult(out));
            String s = out.toString();
            chars += s.length();
            crc.update(s.getBytes("UTF-8"));
        }
        System.out.println("transformed " + rounds + " times, " + chars + " characters");
        System.out.println("checksum: " + Long.toHexString(crc.getValue()) + "-" + chars);
    }
}
