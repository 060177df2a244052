/*
 * Two named threads doing different planted work, for `wasp report
 * --thread` (summary.py, summary.thread): "storer-1" runs DeadStoreEuler's
 * damping (its dead stores), "loader-2" SilentLoadSearch's linear search
 * (its silent loads), at the same time. Recorded with wasp run --threads,
 * their contexts carry "[thread storer-#]" and "[thread loader-#]" (digits
 * folded), so each thread's evidence can be kept alone. The planted lines
 * are those classes' WASP-EXPECT markers.
 *
 * Usage: java ThreadsTwo [thousands]   (default 300: 300 k damping steps
 * and 2,400 k searches, about 1.5 s each)
 */
public class ThreadsTwo {
    static volatile long sink;

    static void stores(int thousands) {
        int cells = DeadStoreEuler.CELLS;
        DeadStoreEuler.Statevector[] ug = new DeadStoreEuler.Statevector[cells];
        DeadStoreEuler.Statevector[] temp2 = new DeadStoreEuler.Statevector[cells];
        for (int j = 0; j < cells; j++) {
            ug[j] = new DeadStoreEuler.Statevector(Math.sin(j * 0.01), 1.0 + (j % 7) * 0.125, j, -j);
            temp2[j] = new DeadStoreEuler.Statevector(0, 0, 0, 0);
        }
        double checksum = 0;
        for (long step = 0; step < thousands * 1000L; step++) {
            double s = DeadStoreEuler.calculateDamping(ug, temp2);
            checksum += s;
            DeadStoreEuler.Statevector u = ug[(int) (step % cells)];
            u.a = u.a * 0.5 + s * 1e-3;
            u.b = 1.0 + (u.b * 7.0) % 1.0;
        }
        sink += Double.doubleToLongBits(checksum);
    }

    static void loads(int thousands) {
        int[] table = new int[SilentLoadSearch.SIZE];
        for (int i = 0; i < table.length; i++) table[i] = i * SilentLoadSearch.K;
        long checksum = 0;
        int rnd = 12345;
        for (long q = 0; q < thousands * 1000L; q++) {
            rnd = rnd * 1103515245 + 12345;
            int want = (rnd >>> 8) % table.length;
            checksum = checksum * 31 + SilentLoadSearch.indexOf(table, want * SilentLoadSearch.K);
        }
        sink += checksum;
    }

    public static void main(String[] args) throws InterruptedException {
        final int thousands = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        Thread storer = new Thread(new Runnable() {
            public void run() { stores(thousands); }
        }, "storer-1");
        Thread loader = new Thread(new Runnable() {
            public void run() { loads(thousands * 8); }
        }, "loader-2");
        storer.start();
        loader.start();
        storer.join();
        loader.join();
        System.out.println("checksum: " + Long.toHexString(sink));
    }
}
