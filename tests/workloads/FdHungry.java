/*
 * A service's use of file descriptors beside many threads: N threads wait,
 * and for each line read on standard input the program opens HOLD files at
 * once (held together, then closed) and prints "round LINE failed F", F the
 * opens refused ("Too many open files"). "stop" ends it: "opened N failed F".
 * Run under a low open-file limit, it shows whether a profiler's per-thread
 * events leave the program the descriptors it needs (tests/integration/
 * sessions.py, sessions.fd-budget).
 *
 * Usage: java FdHungry THREADS HOLD
 */
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

public class FdHungry {
    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]), hold = Integer.parseInt(args[1]);
        CountDownLatch stop = new CountDownLatch(1);
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    stop.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            t.setDaemon(true);
            t.start();
        }
        System.out.println("ready");
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        long opened = 0, failed = 0;
        for (String line; (line = in.readLine()) != null && !line.equals("stop"); ) {
            List<FileInputStream> held = new ArrayList<>();
            int f = 0;
            for (int i = 0; i < hold; i++) {
                try {
                    held.add(new FileInputStream("/proc/self/stat"));
                    opened++;
                } catch (IOException e) {
                    f++;
                }
            }
            for (FileInputStream s : held) s.close();
            failed += f;
            System.out.println("round " + line + " failed " + f);
            System.out.flush();
        }
        System.out.println("opened " + opened + " failed " + failed);
        stop.countDown();
    }
}
