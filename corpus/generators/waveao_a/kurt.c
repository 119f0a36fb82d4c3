/* Trailing-window kurtosis of the vibration signal (the plant engineers' helper, called through ctypes). */
#define MAXW 96
void window_kurtosis(const double *x, int n, int w, double *out) {
    double buf[MAXW];
    for (int i = 0; i < n; i++) {
        int k = i + 1 < w ? i + 1 : w;
        double m = 0, m2 = 0, m4 = 0;
        for (int j = 0; j < k; j++) { buf[j] = x[i - j]; m += buf[j]; }
        m /= k;
        for (int j = 0; j < k; j++) { double d = buf[j] - m; m2 += d * d; m4 += d * d * d * d; }
        out[i] = m2 > 0 ? k * m4 / (m2 * m2) : 0.0;
    }
}
