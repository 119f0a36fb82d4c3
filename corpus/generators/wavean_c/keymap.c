/* Physical key positions of a US keyboard (row, column in key widths) and the travel distance between
 * consecutive keys of a passphrase, for keystroke-dynamics features.  Build: gcc -O2 -shared -fPIC -o libkeymap.so keymap.c */
#include <math.h>
#include <string.h>

struct key { const char *name; double row, col; };

static const struct key KEYS[] = {
    {"period", 3, 9.25}, {"t", 1, 4.5}, {"i", 1, 7.5}, {"e", 1, 2.5}, {"five", 0, 5}, {"Shift.r", 3, 12.5},
    {"o", 1, 8.5}, {"a", 2, 1.75}, {"n", 3, 6.25}, {"l", 2, 8.75}, {"Return", 2, 12.5}, {"space", 4, 6},
    {"Shift.l", 3, 0.5}, {"Tab", 1, 0}, {"Backspace", 0, 13.5},
};

static const struct key *find_key(const char *name) {
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
        if (strcmp(KEYS[i].name, name) == 0) return &KEYS[i];
    return NULL;
}

int key_travel(const char **names, int n, double *out) {
    for (int i = 0; i + 1 < n; i++) {
        const struct key *a = find_key(names[i]), *b = find_key(names[i + 1]);
        out[i] = hypot(a->row - b->row, a->col - b->col);
    }
    return n - 1;
}
