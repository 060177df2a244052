/*
 * Planted object replicas (OJXPerf; Parquet's readNext): a page reader that
 * allocates a fresh byte[] page buffer on every readNext() and fills it from
 * its input. The input is mostly the same page again and again (a column of
 * repeated values), so most buffers are bitwise copies of one another; one
 * page in VARIANT (independently, seeded) comes from a fresh part of the input
 * whose every byte differs from the common page. The caller then decodes each
 * page in several passes, so the page buffers get most of the memory accesses.
 *
 * Pages are independent and identically distributed, and every page costs
 * the same work whatever its kind, so the chance that two distinct pages are
 * identical does not depend on how far apart they are nor on how much time
 * the program spends in them: whichever pairs of pages a sampler happens to
 * compare, it estimates the same replication factor. The exact one printed here is measured, not assumed:
 * over the pages in the order they are read, the fraction of consecutive pairs
 * whose contents are bitwise identical (about (1 - 1/8)^2 = 0.766).
 *
 * Usage: java ReplicaReader [pages]   (default 36000, about 3-4 s)
 * Prints "replication: X" (exact θ), "pages: N" and "checksum: ...".
 */
import java.util.Arrays;

public class ReplicaReader {
    static final int PAGE = 8192;    // bytes per page buffer (>= 4 KiB: tracked)
    static final int PASSES = 12;    // decode passes per page
    static final int VARIANT = 8;    // one page in VARIANT differs in every byte

    /* The reader's state (static, so that readNext is ReplicaReader.readNext). */
    static final byte[] common = new byte[PAGE]; // the repeated page of the input
    static long seed;
    static boolean lastWasVariant;

    static void open(long s0) {
        seed = s0;
        long s = s0 ^ 0x5DEECE66DL;
        for (int i = 0; i < PAGE; i++) {
            s = next(s);
            common[i] = (byte) (s >>> 29);
        }
    }

    static long next(long s) {
        s ^= s << 13;
        s ^= s >>> 7;
        s ^= s << 17;
        return s;
    }

    static byte[] readNext() {
        byte[] page = new byte[PAGE]; // WASP-EXPECT: replicas
        System.arraycopy(common, 0, page, 0, PAGE);
        seed = next(seed);
        lastWasVariant = Long.remainderUnsigned(seed, VARIANT) == 0;
        // A variant is a fresh part of the input: every byte differs from the
        // common page (XOR with a non-zero byte), and from other fresh pages in
        // all but about 1/255 of the bytes. Every page runs the same pass (a
        // common page XORs with 0), so a variant costs no more time than a
        // common page: a time-based sampler then picks either kind at the rate
        // it is allocated, and its estimate of θ is not biased toward variants.
        int key = lastWasVariant ? 0xff : 0;
        long s = seed | 1;
        for (int i = 0; i < PAGE; i += 8) {
            s = next(s);
            for (int b = 0; b < 8; b++) {
                int x = (int) (s >>> (8 * b)) & 0xff;
                page[i + b] ^= (byte) ((x == 0 ? 0x5a : x) & key);
            }
        }
        return page;
    }

    /* The consumer: a few hashing passes over the page (scalar byte loads). */
    static long decode(byte[] page) {
        long h = 0;
        for (int p = 0; p < PASSES; p++) {
            int a = p, b = 0;
            for (int i = 0; i < page.length; i += 2) {
                a = a * 31 + page[i];
                b = b * 17 + page[i + 1];
            }
            h = h * 1000003 + a + b;
        }
        return h;
    }

    public static void main(String[] args) {
        int pages = args.length > 0 ? Integer.parseInt(args[0]) : 36000;
        open(0x9E3779B97F4A7C15L);
        byte[] prev = null;
        long same = 0, pairs = 0, variants = 0, checksum = 0;
        for (int n = 0; n < pages; n++) {
            byte[] page = readNext();
            if (lastWasVariant)
                variants++;
            checksum = checksum * 31 + decode(page);
            if (prev != null) {
                pairs++;
                if (Arrays.equals(prev, page))
                    same++;
            }
            prev = page;
        }
        System.out.printf("pages: %d (%d variant)%n", pages, variants);
        System.out.printf("replication: %.4f%n", (double) same / pairs);
        System.out.println("checksum: " + Long.toHexString(checksum));
    }
}
