/* fastpack: gather fixed-width float32 records from a packed shard by offset (used by the data loader via ctypes). */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#define FP_MAX_DIM 256

int fp_gather(const char *base, const int64_t *offsets, const int64_t *idx, int n, int dim, float *out)
{
    assert(dim > 0 && dim <= FP_MAX_DIM);
    for (int i = 0; i < n; i++) {
        const float *src = (const float *)(base + offsets[idx[i]]);
        memcpy(out + (int64_t)i * dim, src, sizeof(float) * (size_t)dim);
    }
    return n;
}
