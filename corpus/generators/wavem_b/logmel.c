/* Framed log-energy filterbank features for the CTC model's data loader (built at start-up, loaded with ctypes). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIN 400
#define HOP 160

int num_frames(int n) { return n < WIN ? 1 : 1 + (n - WIN) / HOP; }

int logmel(const float *wav, int n, int bins, float *out) {
    const float *src = wav;
    float *padded = NULL;
    if (n < WIN) { /* clips shorter than one window: zero-pad into a scratch buffer */
        padded = (float *)malloc(WIN * sizeof(float));
        memset(padded, 0, WIN * sizeof(float));
        memcpy(padded, wav, n * sizeof(float));
        src = padded;
        n = WIN;
        free(padded);
    }
    int frames = num_frames(n);
    float *frame = (float *)malloc(WIN * sizeof(float));
    for (int f = 0; f < frames; f++) {
        const float *w = frame;
        memcpy(frame, src + f * HOP, WIN * sizeof(float));
        for (int b = 0; b < bins; b++) {
            int lo = b * WIN / bins, hi = (b + 1) * WIN / bins;
            double e = 1e-6;
            for (int i = lo; i < hi; i++) {
                double hann = 0.5 - 0.5 * cos(2 * M_PI * i / (WIN - 1));
                e += (w[i] * hann) * (w[i] * hann);
            }
            out[f * bins + b] = (float)log(e);
        }
    }
    free(frame);
    if (padded) free(padded);
    return frames;
}
