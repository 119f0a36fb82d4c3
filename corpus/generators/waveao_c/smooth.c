/* Moving-average smoothing of pen trajectories (tremor removal): x is [n_seq, points, 3] (x, y, pen); the x and y
 * channels of each sequence are averaged over a centred window of w points. Returns a newly allocated array that the
 * caller frees with smooth_free. Float and double versions. */
#include <stdlib.h>

#define SMOOTH(NAME, T)                                                                   \
    T *NAME(const T *x, int n_seq, int points, int w) {                                    \
        T *out = malloc(sizeof(T) * (size_t)n_seq * points * 3);                           \
        for (int s = 0; s < n_seq; s++) {                                                  \
            const T *a = x + (size_t)s * points * 3;                                       \
            T *o = out + (size_t)s * points * 3;                                           \
            for (int i = 0; i < points; i++) {                                             \
                T sx = 0, sy = 0;                                                          \
                int k = 0;                                                                 \
                for (int j = i - w / 2; j <= i + w / 2; j++) {                             \
                    if (j < 0 || j >= points) continue;                                    \
                    sx += a[j * 3];                                                        \
                    sy += a[j * 3 + 1];                                                    \
                    k++;                                                                   \
                }                                                                          \
                o[i * 3] = sx / k;                                                         \
                o[i * 3 + 1] = sy / k;                                                     \
                o[i * 3 + 2] = a[i * 3 + 2];                                               \
            }                                                                              \
        }                                                                                  \
        return out;                                                                        \
    }

SMOOTH(smooth_f32, float)
SMOOTH(smooth_f64, double)

void smooth_free(void *p) { free(p); }
