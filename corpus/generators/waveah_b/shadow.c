/* Cloud-shadow mask for 5-band float tiles (band-major, n x n): pixels `off` rows/cols below-right of a bright
 * (cloud) pixel are darkened in every band. Built with: gcc -O2 -shared -fPIC -o libshadow.so shadow.c */
void shadow_mask(float *img, int n, long off) {
    long plane = (long)n * n;
    for (long y = 0; y < n; y++)
        for (long x = 0; x < n; x++)
            if (img[y * n + x] > 0.5f)
                for (int b = 0; b < 5; b++)
                    img[b * plane + (y + off) * n + (x + off)] *= 0.6f;
}
