/* Connected-component post-processing for segmentation masks: label 4-connected regions of equal class with a
 * recursive flood fill and reset regions smaller than min_size pixels to background (class 0).
 * Build: gcc -O2 -shared -fPIC -o libccl.so ccl.c */
#include <stdlib.h>

static int fill(const int *m, int *lab, int h, int w, int y, int x, int cls, int id) {
    if (y < 0 || y >= h || x < 0 || x >= w) return 0;
    int i = y * w + x;
    if (lab[i] || m[i] != cls) return 0;
    lab[i] = id;
    return 1 + fill(m, lab, h, w, y + 1, x, cls, id) + fill(m, lab, h, w, y - 1, x, cls, id)
             + fill(m, lab, h, w, y, x + 1, cls, id) + fill(m, lab, h, w, y, x - 1, cls, id);
}

int remove_small_components(int *mask, int h, int w, int min_size) {
    int *lab = calloc((size_t)h * w, sizeof(int));
    int *size = calloc((size_t)h * w + 1, sizeof(int));
    int id = 0, removed = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (!lab[y * w + x]) { id++; size[id] = fill(mask, lab, h, w, y, x, mask[y * w + x], id); }
    for (int i = 0; i < h * w; i++)
        if (mask[i] != 0 && size[lab[i]] < min_size) { mask[i] = 0; removed++; }
    free(lab); free(size);
    return removed;
}
