/* Number formatting for the text report; see units.h. */
#include "cli/render/units.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *wasp_fmt_bytes(double b, char *buf, size_t n)
{
    /* Binary units throughout (KiB = 1024 B), as sizes and intervals are
     * powers of two and the rest of wasp speaks MiB. */
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    if (!isfinite(b)) {
        snprintf(buf, n, "? B");
        return buf;
    }
    while (fabs(b) >= 1023.95 && u < 5) {
        b /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%.0f B", b);
    else
        snprintf(buf, n, "%.1f %s", b, unit[u]);
    return buf;
}

const char *wasp_fmt_percent(double f, char *buf, size_t n)
{
    if (!isfinite(f))
        snprintf(buf, n, "?%%");
    else if (f > 0 && f < 0.0005)
        snprintf(buf, n, "<0.1%%");
    else
        snprintf(buf, n, "%.1f%%", f * 100);
    return buf;
}

const char *wasp_fmt_u64(uint64_t v, char *buf, size_t n)
{
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%" PRIu64, v);
    char tmp[32];
    int o = 0;
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            tmp[o++] = ',';
        tmp[o++] = digits[i];
    }
    tmp[o] = 0;
    snprintf(buf, n, "%s", tmp);
    return buf;
}

const char *wasp_fmt_count(double c, char *buf, size_t n)
{
    if (!isfinite(c) || c < 0)
        snprintf(buf, n, "%g", c);
    else if (c < 10 && c != floor(c))
        snprintf(buf, n, "%.1f", c);
    else if (c >= 9e18) /* beyond llround */
        snprintf(buf, n, "%.3g", c);
    else
        wasp_fmt_u64((uint64_t)llround(c), buf, n);
    return buf;
}

const char *wasp_fmt_duration_ns(uint64_t ns, char *buf, size_t n)
{
    double s = (double)ns / 1e9;
    if (s < 1)
        snprintf(buf, n, "%.0f ms", s * 1000);
    else if (s < 60)
        snprintf(buf, n, "%.3g s", s);
    else if (s < 3600)
        snprintf(buf, n, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, n, "%" PRIu64 " h %02d min", (uint64_t)(s / 3600), (int)fmod(s / 60, 60));
    return buf;
}
