/* fasttok: lower-case, split on non-alphanumerics, FNV-1a hash each word into [3, vocab). Built at job start:
 *   gcc -O2 -shared -fPIC -o libfasttok.so fasttok.c
 * int fasttok_encode(const char *text, int *out, int max_len, int vocab) -> number of ids written */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

int fasttok_encode(const char *text, int *out, int max_len, int vocab) {
    size_t n = strlen(text);
    int count = 0;
    uint64_t h = 1469598103934665603ULL;
    int in_word = 0;
    for (size_t i = 0; i <= n && count < max_len; i++) {
        unsigned char c = i < n ? (unsigned char)text[i] : ' ';
        if (isalnum(c)) {
            h = (h ^ (uint64_t)tolower(c)) * 1099511628211ULL;
            in_word = 1;
        } else if (in_word) {
            out[count++] = (int)(h % (uint64_t)(vocab - 3)) + 3;
            h = 1469598103934665603ULL;
            in_word = 0;
        }
    }
    for (int k = count; k < max_len; k++) out[k] = 0;
    return count;
}
