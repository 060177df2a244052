// Corpus driver: pdfbox writes a PDF of PAGES pages of generated text, parses it
// back and extracts its text, ROUNDS times; prints a checksum of the text.
// Usage: PdfboxDriver ROUNDS PAGES
import java.io.ByteArrayOutputStream;
import java.util.Random;
import java.util.zip.CRC32;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.text.PDFTextStripper;

public class PdfboxDriver {
    static final String[] WORDS = ("memory waste store load dead silent object replica field "
        + "allocation site context sample watch trap page register thread heap profile "
        + "report analysis fraction bytes program compiler").split(" ");

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        int pages = Integer.parseInt(args[1]);
        CRC32 crc = new CRC32();
        long chars = 0;
        for (int r = 0; r < rounds; r++) {
            Random rnd = new Random(r % 3);
            ByteArrayOutputStream pdf = new ByteArrayOutputStream();
            try (PDDocument doc = new PDDocument()) {
                for (int p = 0; p < pages; p++) {
                    PDPage page = new PDPage();
                    doc.addPage(page);
                    try (PDPageContentStream cs = new PDPageContentStream(doc, page)) {
                        cs.beginText();
                        cs.setFont(PDType1Font.HELVETICA, 10);
                        cs.setLeading(12);
                        cs.newLineAtOffset(50, 740);
                        for (int l = 0; l < 55; l++) {
                            StringBuilder sb = new StringBuilder();
                            while (sb.length() < 90) sb.append(WORDS[rnd.nextInt(WORDS.length)]).append(' ');
                            cs.showText(sb.toString());
                            cs.newLine();
                        }
                        cs.endText();
                    }
                }
                doc.save(pdf);
            }
            try (PDDocument doc = PDDocument.load(pdf.toByteArray())) {
                String text = new PDFTextStripper().getText(doc);
                chars += text.length();
                crc.update(text.getBytes("UTF-8"));
            }
        }
        System.out.println("extracted " + chars + " characters");
        System.out.println("checksum: " + Long.toHexString(crc.getValue()) + "-" + chars);
    }
}
