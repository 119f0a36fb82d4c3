/* Linear-interpolation resampler for sensor channels (faster than numpy.interp on long recordings). */
#include <stdlib.h>

/* Resample n samples from fs_in to fs_out; returns a malloc'd buffer of *n_out samples (free with resample_free). */
float *resample_linear(const float *x, int n, int fs_in, int fs_out, int *n_out) {
    float *y = malloc(sizeof(float) * n); /* the output never has more samples than the input */
    int m = (int)((long)n * fs_out / fs_in);
    for (int i = 0; i < m; i++) {
        double t = (double)i * fs_in / fs_out;
        int j = (int)t;
        double f = t - j;
        y[i] = j + 1 < n ? (float)(x[j] * (1.0 - f) + x[j + 1] * f) : x[n - 1];
    }
    *n_out = m;
    return y;
}

void resample_free(float *y) { free(y); }
