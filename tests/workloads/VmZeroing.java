/*
 * Samples in the JVM's runtime (issue 11): every 256 KiB long[] is allocated
 * outside the thread's allocation buffer, so the JVM zeroes it in its own
 * code (memset, called from the runtime's allocation path) while the thread
 * is "in the VM". Those samples must still be followed by the Java frames
 * that allocated: the frame anchor HotSpot leaves without its pc there.
 *
 * Usage: java VmZeroing [arrays]   (default 40000)
 * Prints "checksum: ...".
 */
public class VmZeroing {
    static long touch(int i) {
        long[] block = new long[1 << 15]; // WASP-EXPECT: fields
        block[i & 1023] = i;
        return block[(i * 7) & 1023];
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 40000;
        long sum = 0;
        for (int i = 0; i < n; i++)
            sum += touch(i);
        System.out.println("checksum: " + sum);
    }
}
