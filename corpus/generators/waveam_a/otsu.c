/* Per-tile cloud mask by Otsu's threshold on visible brightness (blue+green+red)/3.
 * Fills mask[h*w] with 1 for pixels brighter than the threshold; returns the cloudy fraction x 1000. */
#include <string.h>

int otsu_cloud_mask(const float *tile, int bands, int h, int w, unsigned char *mask) {
    int hist[256];
    int n = h * w;
    const float *blue = tile + 1 * n, *green = tile + 2 * n, *red = tile + 3 * n;
    memset(hist, 0, sizeof(hist));
    for (int i = 0; i < n; i++) {
        float v = (blue[i] + green[i] + red[i]) / 3.0f;
        int b = (int)(v * 255.0f);  /* reflectance 0..1 -> bin 0..255 */
        hist[b]++;
    }
    long sum = 0, sum_b = 0;
    for (int t = 0; t < 256; t++) sum += (long)t * hist[t];
    int w_b = 0, best_t = 0;
    double best = -1.0;
    for (int t = 0; t < 256; t++) {
        w_b += hist[t];
        if (w_b == 0) continue;
        int w_f = n - w_b;
        if (w_f == 0) break;
        sum_b += (long)t * hist[t];
        double m_b = (double)sum_b / w_b, m_f = (double)(sum - sum_b) / w_f;
        double between = (double)w_b * w_f * (m_b - m_f) * (m_b - m_f);
        if (between > best) { best = between; best_t = t; }
    }
    int cloudy = 0;
    for (int i = 0; i < n; i++) {
        float v = (blue[i] + green[i] + red[i]) / 3.0f;
        mask[i] = (int)(v * 255.0f) > best_t && v > 0.5f;
        cloudy += mask[i];
    }
    (void)bands;
    return (int)(1000L * cloudy / n);
}
