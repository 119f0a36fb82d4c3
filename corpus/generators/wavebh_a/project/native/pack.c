/* pack.c: copy fixed-length token windows out of a memory-mapped shard into a batch buffer. */
#include <stdint.h>
#include <string.h>

int pack_windows(const uint16_t *tokens, const int64_t *starts, int64_t n, int64_t width, int64_t *out)
{
    for (int64_t i = 0; i < n; i++) {
        const uint16_t *src = tokens + starts[i];
        for (int64_t j = 0; j < width; j++)
            out[i * width + j] = (int64_t)src[j];
    }
    return 0;
}
