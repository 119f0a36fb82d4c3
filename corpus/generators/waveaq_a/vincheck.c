/* VIN check digit (ISO 3779 / North American position 9) for the fraud features. */
#include <assert.h>
#include <string.h>

static int translit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    static const char *letters = "ABCDEFGHJKLMNPRSTUVWXYZ";
    static const int values[] = {1,2,3,4,5,6,7,8,1,2,3,4,5,7,9,2,3,4,5,6,7,8,9};
    const char *p = strchr(letters, c);
    return p ? values[p - letters] : 0;
}

int vin_check_ok(const char *vin) {
    static const int weights[17] = {8,7,6,5,4,3,2,10,0,9,8,7,6,5,4,3,2};
    size_t n = strlen(vin);
    assert(n == 17);
    int sum = 0;
    for (int i = 0; i < 17; i++) sum += translit(vin[i]) * weights[i];
    int r = sum % 11;
    char expect = r == 10 ? 'X' : (char)('0' + r);
    return vin[8] == expect;
}
