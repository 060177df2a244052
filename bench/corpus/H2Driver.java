// Corpus driver: h2 (in memory) runs a generated SQL script ROUNDS times: DDL,
// inserts, joins, aggregates, updates (DaCapo's h2 is an SQL workload too);
// prints a checksum of every result set.
// Usage: H2Driver ROUNDS SCRIPT.sql
import java.io.File;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.zip.CRC32;

public class H2Driver {
    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        List<String> script = Files.readAllLines(new File(args[1]).toPath());
        CRC32 crc = new CRC32();
        long rows = 0;
        Class.forName("org.h2.Driver");
        for (int r = 0; r < rounds; r++) {
            try (Connection c = DriverManager.getConnection("jdbc:h2:mem:corpus" + r);
                 Statement s = c.createStatement()) {
                for (String sql : script) {
                    if (sql.isEmpty() || sql.startsWith("--")) continue;
                    if (s.execute(sql)) {
                        try (ResultSet rs = s.getResultSet()) {
                            int cols = rs.getMetaData().getColumnCount();
                            while (rs.next()) {
                                rows++;
                                for (int i = 1; i <= cols; i++) {
                                    String v = rs.getString(i);
                                    crc.update((v == null ? "null" : v).getBytes("UTF-8"));
                                }
                            }
                        }
                    }
                }
            }
        }
        System.out.println("rows read " + rows);
        System.out.println("checksum: " + Long.toHexString(crc.getValue()) + "-" + rows);
    }
}
