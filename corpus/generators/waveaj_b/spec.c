/* Frame energies of a waveform with a Hann-windowed analysis frame (preview quality checks). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

void frame_energies(const float *wave, int n, int n_fft, int win_length, int hop, float *out) {
    float *frame = malloc(sizeof(float) * n_fft);
    float *window = malloc(sizeof(float) * n_fft);
    /* window at the start of the analysis frame, zero after win_length */
    memset(window, 0, sizeof(float) * n_fft);
    int off = 0;
    for (int i = 0; i < win_length; i++)
        window[off + i] = 0.5f - 0.5f * cosf(2.0f * (float)M_PI * i / (float)win_length);
    int frames = n >= win_length ? 1 + (n - win_length) / hop : 0;
    for (int f = 0; f < frames; f++) {
        memset(frame, 0, sizeof(float) * n_fft);
        for (int i = 0; i < win_length; i++)
            frame[off + i] = wave[f * hop + i] * window[off + i];
        double e = 0.0;
        for (int i = 0; i < n_fft; i++)
            e += (double)frame[i] * frame[i];
        out[f] = (float)(e / n_fft);
    }
    free(window);
    free(frame);
}
