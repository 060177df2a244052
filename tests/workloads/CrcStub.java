/*
 * Most of the time in a JVM intrinsic stub: CRC32.update over a byte[] runs
 * in StubRoutines' updateBytesCRC32 (C2 and C1 call it; the interpreter has
 * its own entry), which reads the array. The samples land in the stub, whose
 * frame the report must show as [jvm stub], with the Java line that called
 * CRC32.update after it.
 *
 * Usage: java CrcStub [rounds]  (default 400000, about 2 s)
 * Prints "checksum: ...".
 */
import java.util.zip.CRC32;

public class CrcStub {
    static long digest(CRC32 crc, byte[] data) {
        crc.reset();
        crc.update(data, 0, data.length); // WASP-EXPECT: fields
        return crc.getValue();
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 400000;
        byte[] data = new byte[1 << 18];
        for (int i = 0; i < data.length; i++)
            data[i] = (byte) (i * 31 + (i >>> 7));
        CRC32 crc = new CRC32();
        long checksum = 0;
        for (int r = 0; r < rounds; r++) {
            data[r & (data.length - 1)] ^= (byte) r;
            checksum = checksum * 31 + digest(crc, data);
        }
        System.out.println("checksum: " + Long.toHexString(checksum));
    }
}
