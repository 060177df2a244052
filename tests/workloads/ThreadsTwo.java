/*
 * Two named threads doing different planted work, for `wasp report
 * --thread` (summary.py, summary.thread): "storer-1" runs DeadStoreEuler
 * (its dead stores), "loader-2" SilentLoadSearch (its silent loads), at the
 * same time. Recorded with wasp run --threads, their contexts carry
 * "[thread storer-#]" and "[thread loader-#]" (digits folded), so each
 * thread's evidence can be kept alone. The planted lines are those
 * classes' WASP-EXPECT markers.
 *
 * Usage: java ThreadsTwo [thousands]   (default 300: 300 k damping steps
 * and 2,400 k searches, about 1.5 s each)
 */
public class ThreadsTwo {
    public static void main(String[] args) throws InterruptedException {
        final int thousands = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        Thread storer = new Thread(new Runnable() {
            public void run() { DeadStoreEuler.main(new String[] {Integer.toString(thousands)}); }
        }, "storer-1");
        Thread loader = new Thread(new Runnable() {
            public void run() { SilentLoadSearch.main(new String[] {Integer.toString(thousands * 8)}); }
        }, "loader-2");
        storer.start();
        loader.start();
        storer.join();
        loader.join();
    }
}
