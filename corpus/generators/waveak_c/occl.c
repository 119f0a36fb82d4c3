/* Per-frame occlusion statistics for the clip loader: how much of each object is left visible.
 *
 * ids:  n_frames x npix object id map (0 = background, k + 1 = object k, the topmost object at that pixel)
 * area: n_frames x n_obj pixel area of each object drawn alone
 * pct:  n_frames x n_obj visible share in percent (out)
 *
 *   gcc -O2 -shared -fPIC -o libocc.so occl.c
 */
#include <stdint.h>

#define MAX_OBJ 16

void occlusion_pct(const uint8_t *ids, const int32_t *area, int n_frames, int npix, int n_obj, int32_t *pct)
{
    int32_t vis[MAX_OBJ];
    for (int f = 0; f < n_frames; f++) {
        for (int k = 0; k < n_obj; k++)
            vis[k] = 0;
        const uint8_t *m = ids + (long)f * npix;
        for (int p = 0; p < npix; p++)
            if (m[p])
                vis[m[p] - 1]++;
        for (int k = 0; k < n_obj; k++)
            pct[f * n_obj + k] = 100 * vis[k] / area[f * n_obj + k];
    }
}
