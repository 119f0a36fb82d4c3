/* Mixdown of two half-precision source tracks (speaker levels already applied in the shard), summed in half
 * precision like the export pipeline, for shards stored as float16. Built on the data-prep server with
 * -O3 -march=native. */
#include <stddef.h>

void mix_f16(const _Float16 *a, const _Float16 *b, _Float16 *out, int n) {
    for (int i = 0; i < n; i++) {
        _Float16 s = a[i] + b[i];
        out[i] = s > (_Float16)1.0f ? (_Float16)1.0f : (s < (_Float16)-1.0f ? (_Float16)-1.0f : s);
    }
}
