/* Trailing mean of the previous `window` hours for each hour (the current hour excluded), for long series. */
#include <string.h>

#define MAX_WINDOW 2160  /* 90 days of hourly values */

void trailing_mean(const double *x, long n, long window, double *out)
{
    double buf[MAX_WINDOW];      /* ring buffer of the last `window` values */
    double sum = 0.0;
    long filled = 0;
    memset(buf, 0, sizeof(buf));
    for (long i = 0; i < n; i++) {
        out[i] = filled ? sum / (double)filled : x[i];
        long slot = i % window;
        if (filled == window)
            sum -= buf[slot];
        else
            filled++;
        buf[slot] = x[i];
        sum += x[i];
    }
}
