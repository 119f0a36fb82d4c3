/* winops: cut fixed-length windows out of a flat float32 series buffer (used by the data loader). */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#define WIN_MAX 256

void win_gather(const float *series, const int64_t *starts, int n, int window, float *out)
{
    assert(window > 0 && window <= WIN_MAX);
    for (int i = 0; i < n; i++)
        memcpy(out + (int64_t)i * (window + 1), series + starts[i], sizeof(float) * (size_t)(window + 1));
}
