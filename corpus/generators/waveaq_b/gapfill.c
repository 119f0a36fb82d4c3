/* Linear interpolation over runs of missing (NaN) PM2.5 hours, in place. Returns the number of hours filled.
   A run is buffered before it is filled; sensor outages are "never longer than a week". */
#include <math.h>

int fill_gaps(float *pm, int n) {
    int run[168];
    int len = 0, filled = 0;
    for (int i = 0; i < n; i++) {
        if (isnan(pm[i])) {
            run[len++] = i;
            continue;
        }
        if (len) {
            int a = run[0] - 1;
            float left = a >= 0 ? pm[a] : pm[i];
            for (int k = 0; k < len; k++) {
                float w = (float)(k + 1) / (float)(len + 1);
                pm[run[k]] = left + w * (pm[i] - left);
            }
            filled += len;
            len = 0;
        }
    }
    return filled;
}
