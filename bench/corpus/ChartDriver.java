// Corpus driver: JFreeChart builds line, bar and pie charts of seeded data and
// renders them ROUNDS times into images; prints a checksum of the pixels.
// Usage: ChartDriver ROUNDS POINTS
import java.awt.image.BufferedImage;
import java.util.Random;
import java.util.zip.CRC32;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.general.DefaultPieDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

public class ChartDriver {
    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        int rounds = Integer.parseInt(args[0]);
        int points = Integer.parseInt(args[1]);
        CRC32 crc = new CRC32();
        for (int r = 0; r < rounds; r++) {
            Random rnd = new Random(r % 4);
            for (JFreeChart chart : new JFreeChart[] {line(rnd, points), bar(rnd), pie(rnd)}) {
                BufferedImage img = chart.createBufferedImage(800, 600);
                int[] px = img.getRGB(0, 0, 800, 600, null, 0, 800);
                for (int p : px) crc.update(p);
            }
        }
        System.out.println("rendered " + 3 * rounds + " charts");
        System.out.println("checksum: " + Long.toHexString(crc.getValue()));
    }

    static JFreeChart line(Random rnd, int points) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (int s = 0; s < 4; s++) {
            XYSeries series = new XYSeries("series " + s);
            double y = 0;
            for (int i = 0; i < points; i++) {
                y += rnd.nextGaussian();
                series.add(i, y);
            }
            data.addSeries(series);
        }
        return ChartFactory.createXYLineChart("Random walks", "step", "value", data,
                                              PlotOrientation.VERTICAL, true, false, false);
    }

    static JFreeChart bar(Random rnd) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (int s = 0; s < 5; s++)
            for (int c = 0; c < 24; c++)
                data.addValue(rnd.nextInt(1000), "row " + s, "c" + c);
        return ChartFactory.createBarChart("Bars", "category", "value", data,
                                           PlotOrientation.VERTICAL, true, false, false);
    }

    static JFreeChart pie(Random rnd) {
        DefaultPieDataset data = new DefaultPieDataset();
        for (int i = 0; i < 16; i++) data.setValue("slice " + i, 1 + rnd.nextInt(100));
        return ChartFactory.createPieChart("Pie", data, true, false, false);
    }
}
