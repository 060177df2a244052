import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/*
 * A long-running, service-like program for soak runs (bench/soak.py): what a
 * profiler attached to a production JVM for hours sees, as far as memory goes.
 *
 *  - an acceptor thread makes "requests" at a fixed rate into a bounded queue;
 *  - a fixed pool of worker threads serves them: string building, HashMap and
 *    ArrayList churn, byte[] buffers (a few over 1 KiB, some of 64 KiB), and a
 *    shared LRU cache behind one lock;
 *  - 48 request kinds, each its own lambda, dispatched to 12 handler styles
 *    through a recursion of 1-8 frames, so that distinct calling contexts keep
 *    appearing for a while (kinds x depths x helpers);
 *  - thread churn: a short-lived thread every 250 ms, a new two-thread
 *    executor every 5 s (shut down once its batch is done), as services do.
 *
 * It runs until a line "stop" on standard input (or SECONDS, when given and
 * > 0); "status" prints a status line at once. A status line is also printed
 * every 30 s:
 *
 *   status t=12.3 requests=N rate=R rejected=N started=N live=N churned=N
 *          executors=N cache=N checksum=X
 *
 * started/live: ThreadMXBean's total started and live thread counts.
 *
 * Usage: java -Xms256m -Xmx256m -cp build/bench Service [SECONDS [WORKERS [RATE]]]
 *        (defaults 0 = until "stop", 4 workers, 2000 requests a second)
 */
public class Service {
    static final AtomicLong requests = new AtomicLong();
    static final AtomicLong rejected = new AtomicLong();
    static final AtomicLong churned = new AtomicLong();
    static final AtomicLong executors = new AtomicLong();
    static final AtomicLong sink = new AtomicLong();
    static volatile boolean running = true;
    static final long t0 = System.nanoTime();

    /* A request: its kind picks the handler, depth the recursion before it. */
    static final class Request {
        final int kind, depth, size;
        final long id;
        final String user;

        Request(long id, int kind, int depth, int size, String user) {
            this.id = id;
            this.kind = kind;
            this.depth = depth;
            this.size = size;
            this.user = user;
        }
    }

    interface Handler {
        long handle(Request r);
    }

    /* The shared cache: an access-ordered LRU map behind one lock. */
    static final Object cacheLock = new Object();
    static final LinkedHashMap<String, byte[]> cache = new LinkedHashMap<>(4096, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, byte[]> e) {
            return size() > 3000;
        }
    };

    static byte[] cached(String key, int size) {
        synchronized (cacheLock) {
            byte[] v = cache.get(key);
            if (v != null)
                return v;
        }
        byte[] v = new byte[size];
        for (int i = 0; i < v.length; i += 7)
            v[i] = (byte) (key.hashCode() + i);
        synchronized (cacheLock) {
            cache.put(key, v);
        }
        return v;
    }

    // ---- handler styles ----------------------------------------------------

    static long renderJson(Request r, int fields) {
        StringBuilder sb = new StringBuilder("{\"id\":").append(r.id).append(",\"user\":\"").append(r.user).append('"');
        for (int i = 0; i < fields; i++)
            sb.append(",\"f").append(i).append("\":").append(r.id * 31 + i);
        return sb.append('}').toString().hashCode();
    }

    static long parseQuery(Request r, int params) {
        StringBuilder q = new StringBuilder();
        for (int i = 0; i < params; i++)
            q.append(i == 0 ? "" : "&").append("k").append(i).append('=').append(r.id % (i + 3));
        HashMap<String, String> m = new HashMap<>();
        for (String kv : q.toString().split("&")) {
            int eq = kv.indexOf('=');
            m.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return m.size() + m.getOrDefault("k1", "").length();
    }

    static long aggregate(Request r, int n) {
        HashMap<Integer, long[]> groups = new HashMap<>();
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        for (int i = 0; i < n; i++) {
            long[] g = groups.computeIfAbsent(rnd.nextInt(16), k -> new long[2]);
            g[0]++;
            g[1] += rnd.nextInt(1000);
        }
        long s = 0;
        for (long[] g : groups.values())
            s += g[1] / g[0];
        return s;
    }

    static long sortItems(Request r, int n) {
        ArrayList<String> items = new ArrayList<>();
        for (int i = 0; i < n; i++)
            items.add(r.user + ":" + ((r.id * 7919 + i * 104729) % 1000));
        Collections.sort(items);
        return items.get(items.size() / 2).hashCode();
    }

    static long cacheLookup(Request r, int keys) {
        long s = 0;
        for (int i = 0; i < keys; i++) {
            byte[] v = cached(r.user + "/" + ((r.id + i) % 5000), 256 + (i & 7) * 256);
            s += v[v.length / 2];
        }
        return s;
    }

    static long bufferCopy(Request r, int kib) {
        byte[] in = new byte[kib * 1024];
        for (int i = 0; i < in.length; i += 64)
            in[i] = (byte) (r.id + i);
        byte[] out = new byte[in.length];
        System.arraycopy(in, 0, out, 0, in.length);
        long s = 0;
        for (int i = 0; i < out.length; i += 512)
            s += out[i];
        return s;
    }

    static long tokenize(Request r, int words) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < words; i++)
            text.append("w").append((r.id + i) % 97).append(' ');
        HashMap<String, Integer> freq = new HashMap<>();
        for (String w : text.toString().trim().split(" "))
            freq.merge(w, 1, Integer::sum);
        return freq.size();
    }

    static long buildReport(Request r, int rows) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < rows; i++)
            lines.add(String.format("%-8s %6d %8.2f", r.user, i, (r.id % 1000) / 7.0 + i));
        return String.join("\n", lines).length();
    }

    static long mergeMaps(Request r, int n) {
        HashMap<String, Long> a = new HashMap<>(), b = new HashMap<>();
        for (int i = 0; i < n; i++) {
            a.put("a" + (i % 50), r.id + i);
            b.put("a" + (i % 70), (long) i);
        }
        b.forEach((k, v) -> a.merge(k, v, Long::sum));
        return a.size();
    }

    static long encode(Request r, int n) {
        byte[] raw = (r.user + "#" + r.id).repeat(n).getBytes(StandardCharsets.UTF_8);
        return java.util.Base64.getEncoder().encodeToString(raw).length();
    }

    static long computeHash(Request r, int rounds) {
        long h = r.id;
        int[] state = new int[64];
        for (int k = 0; k < rounds; k++)
            for (int i = 0; i < state.length; i++) {
                state[i] = state[i] * 31 + (int) (h >>> (i & 31));
                h ^= state[i];
            }
        return h;
    }

    static long paginate(Request r, int n) {
        ArrayList<Long> all = new ArrayList<>();
        for (int i = 0; i < n; i++)
            all.add(r.id * i);
        long s = 0;
        for (int page = 0; page * 20 < all.size(); page++)
            s += new ArrayList<>(all.subList(page * 20, Math.min(all.size(), page * 20 + 20))).size();
        return s;
    }

    /* Recursion before the handler: the depth is part of the calling context. */
    static long via(Request r, int depth, Handler h) {
        if (depth <= 0)
            return h.handle(r);
        return via(r, depth - 1, h) + (depth & 1);
    }

    // 48 kinds: each its own lambda (its own frame), 4 variants per style.
    static final Handler[] KINDS = {
        r -> renderJson(r, 8), r -> renderJson(r, 20), r -> via(r, 2, q -> renderJson(q, 4)), r -> via(r, 5, q -> renderJson(q, 12)),
        r -> parseQuery(r, 5), r -> parseQuery(r, 12), r -> via(r, 1, q -> parseQuery(q, 3)), r -> via(r, 4, q -> parseQuery(q, 8)),
        r -> aggregate(r, 100), r -> aggregate(r, 400), r -> via(r, 3, q -> aggregate(q, 50)), r -> via(r, 6, q -> aggregate(q, 200)),
        r -> sortItems(r, 40), r -> sortItems(r, 150), r -> via(r, 2, q -> sortItems(q, 20)), r -> via(r, 7, q -> sortItems(q, 80)),
        r -> cacheLookup(r, 4), r -> cacheLookup(r, 16), r -> via(r, 1, q -> cacheLookup(q, 2)), r -> via(r, 3, q -> cacheLookup(q, 8)),
        r -> bufferCopy(r, 2), r -> bufferCopy(r, 64), r -> via(r, 2, q -> bufferCopy(q, 8)), r -> via(r, 5, q -> bufferCopy(q, 16)),
        r -> tokenize(r, 50), r -> tokenize(r, 200), r -> via(r, 4, q -> tokenize(q, 30)), r -> via(r, 8, q -> tokenize(q, 100)),
        r -> buildReport(r, 5), r -> buildReport(r, 20), r -> via(r, 1, q -> buildReport(q, 3)), r -> via(r, 6, q -> buildReport(q, 10)),
        r -> mergeMaps(r, 60), r -> mergeMaps(r, 200), r -> via(r, 3, q -> mergeMaps(q, 30)), r -> via(r, 5, q -> mergeMaps(q, 100)),
        r -> encode(r, 4), r -> encode(r, 40), r -> via(r, 2, q -> encode(q, 2)), r -> via(r, 7, q -> encode(q, 16)),
        r -> computeHash(r, 4), r -> computeHash(r, 30), r -> via(r, 1, q -> computeHash(q, 2)), r -> via(r, 4, q -> computeHash(q, 12)),
        r -> paginate(r, 100), r -> paginate(r, 500), r -> via(r, 3, q -> paginate(q, 60)), r -> via(r, 8, q -> paginate(q, 250)),
    };

    static final String[] USERS = { "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi" };

    static Request next(long id) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        return new Request(id, rnd.nextInt(KINDS.length), rnd.nextInt(1, 9), rnd.nextInt(16, 256),
                USERS[rnd.nextInt(USERS.length)]);
    }

    /* Serve one request: its kind's handler under `depth` frames of dispatch. */
    static void serve(Request r) {
        long v = dispatch(r, r.depth);
        sink.addAndGet(v);
        requests.incrementAndGet();
    }

    static long dispatch(Request r, int depth) {
        if (depth > 0)
            return dispatch(r, depth - 1);
        return KINDS[r.kind].handle(r);
    }

    static final ThreadMXBean mx = ManagementFactory.getThreadMXBean();

    static synchronized void status(long lastRequests[], long lastNanos[]) {
        long now = System.nanoTime(), n = requests.get();
        double rate = (n - lastRequests[0]) / Math.max(1e-9, (now - lastNanos[0]) / 1e9);
        lastRequests[0] = n;
        lastNanos[0] = now;
        int size;
        synchronized (cacheLock) {
            size = cache.size();
        }
        System.out.printf("status t=%.1f requests=%d rate=%.0f rejected=%d started=%d live=%d churned=%d executors=%d cache=%d checksum=%x%n",
                (now - t0) / 1e9, n, rate, rejected.get(), mx.getTotalStartedThreadCount(), mx.getThreadCount(),
                churned.get(), executors.get(), size, sink.get());
        System.out.flush();
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 0;
        int workers = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        int rate = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
        ArrayBlockingQueue<Request> queue = new ArrayBlockingQueue<>(4096);
        List<Thread> threads = new ArrayList<>();

        for (int w = 0; w < workers; w++) {
            Thread t = new Thread(() -> {
                while (running) {
                    try {
                        Request r = queue.poll(100, TimeUnit.MILLISECONDS);
                        if (r != null)
                            serve(r);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "worker-" + w);
            threads.add(t);
        }
        // The acceptor: every 10 ms, rate/100 requests (rejected when the queue is full).
        threads.add(new Thread(() -> {
            long id = 0, tick = System.nanoTime();
            while (running) {
                for (int i = 0; i < Math.max(1, rate / 100); i++)
                    if (!queue.offer(next(id++)))
                        rejected.incrementAndGet();
                tick += 10_000_000L;
                long wait = tick - System.nanoTime();
                if (wait > 0) {
                    try {
                        Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
                    } catch (InterruptedException e) {
                        return;
                    }
                } else if (wait < -1_000_000_000L)
                    tick = System.nanoTime(); // more than 1 s late: do not catch up
            }
        }, "acceptor"));
        // Thread churn: a short-lived thread every 250 ms; a new executor every 5 s.
        threads.add(new Thread(() -> {
            long n = 0;
            while (running) {
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
                n++;
                Thread job = new Thread(() -> {
                    for (int i = 0; i < 20; i++)
                        serve(next(-i));
                    churned.incrementAndGet();
                }, "job-" + n);
                job.start();
                if (n % 20 == 0) {
                    ExecutorService ex = Executors.newFixedThreadPool(2);
                    for (int i = 0; i < 50; i++) {
                        long id = -1000 - i;
                        ex.submit(() -> serve(next(id)));
                    }
                    ex.shutdown();
                    try {
                        ex.awaitTermination(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        return;
                    }
                    executors.incrementAndGet();
                }
                try {
                    job.join(10_000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "churner"));
        for (Thread t : threads)
            t.start();

        long[] lastRequests = { 0 }, lastNanos = { t0 };
        Thread stdin = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
                String line;
                while ((line = in.readLine()) != null) {
                    line = line.trim();
                    if (line.equals("status"))
                        status(lastRequests, lastNanos);
                    else if (line.equals("stop")) {
                        running = false;
                        return;
                    }
                }
            } catch (Exception e) {
                // standard input closed or unreadable: run on until SECONDS, if any
            }
        }, "stdin");
        stdin.setDaemon(true);
        stdin.start();

        long deadline = seconds > 0 ? t0 + (long) (seconds * 1e9) : Long.MAX_VALUE;
        long nextStatus = t0 + 30_000_000_000L;
        while (running && System.nanoTime() < deadline) {
            Thread.sleep(100);
            if (System.nanoTime() >= nextStatus) {
                status(lastRequests, lastNanos);
                nextStatus += 30_000_000_000L;
            }
        }
        running = false;
        for (Thread t : threads)
            t.join(30_000);
        status(lastRequests, lastNanos);
        System.out.println("stopped");
        System.out.flush();
        System.exit(0);
    }
}
