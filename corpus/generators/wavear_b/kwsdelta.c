/* Delta (first-order regression, N=2) features over time for each mel band, as a fast helper for the loader. */
#define MAX_FRAMES 64 /* clips are 1 s (32 frames); room for 2 s */

int kws_deltas(const float *feat, int frames, int bins, float *out)
{
    float padded[MAX_FRAMES + 4];
    for (int b = 0; b < bins; b++) {
        for (int t = 0; t < frames + 4; t++) {
            int src = t - 2;
            if (src < 0) src = 0;
            if (src >= frames) src = frames - 1;
            padded[t] = feat[src * bins + b];
        }
        for (int t = 0; t < frames; t++)
            out[t * bins + b] = (2.0f * (padded[t + 4] - padded[t]) + (padded[t + 3] - padded[t + 1])) / 10.0f;
    }
    return 0;
}
