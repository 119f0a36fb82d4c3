/* Linear-interpolation resampler for the keyword-spotting loader (called through ctypes).
 * Build: gcc -O2 -shared -fPIC -o libresample.so resample.c
 * resample_linear(in, n_in, in_rate, out_rate, out) writes n_in * out_rate / in_rate samples to out and returns
 * that count; out must hold them. */
int resample_linear(const float *in, int n_in, int in_rate, int out_rate, float *out) {
    long n_out = (long)n_in * out_rate / in_rate;
    double step = (double)in_rate / out_rate;
    for (long i = 0; i < n_out; i++) {
        double pos = i * step;
        long j = (long)pos;
        double frac = pos - j;
        float a = in[j];
        float b = (j + 1 < n_in) ? in[j + 1] : a;
        out[i] = (float)(a + (b - a) * frac);
    }
    return (int)n_out;
}
