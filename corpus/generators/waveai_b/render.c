/* Rasterise one filled shape into a CHW float image (3 x size x size), anti-aliasing by 2x2 supersampling
   in a scratch coverage buffer. shape: 0 circle, 1 square, 2 triangle, 3 cross. */
#include <assert.h>
#include <math.h>
#include <string.h>

#define MAX_SIZE 64
static float cover[MAX_SIZE * MAX_SIZE];

static int inside(int shape, float dy, float dx, float r) {
    switch (shape) {
    case 0: return dy * dy + dx * dx <= r * r;
    case 1: return fabsf(dy) <= r * 0.85f && fabsf(dx) <= r * 0.85f;
    case 2: return dy <= r * 0.8f && dy >= -r && fabsf(dx) <= (dy + r) * 0.6f;
    default: return (fabsf(dy) <= r && fabsf(dx) <= r * 0.3f) || (fabsf(dx) <= r && fabsf(dy) <= r * 0.3f);
    }
}

void draw_shape(float *img, int size, int shape, float cx, float cy, float r, const float *rgb) {
    assert(size <= MAX_SIZE);
    memset(cover, 0, sizeof(float) * size * size);
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++)
            for (int s = 0; s < 4; s++)
                cover[y * size + x] += 0.25f * inside(shape, y + 0.25f + 0.5f * (s / 2) - cy,
                                                      x + 0.25f + 0.5f * (s % 2) - cx, r);
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < size * size; i++)
            img[c * size * size + i] = img[c * size * size + i] * (1 - cover[i]) + rgb[c] * cover[i];
}
