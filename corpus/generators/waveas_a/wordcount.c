/* Fast word counter for the GRPO reward (the Python split() was the slowest part of scoring a batch).
   Build: gcc -O2 -D_FORTIFY_SOURCE=2 -shared -fPIC -o libwordcount.so wordcount.c */
#include <ctype.h>
#include <string.h>

int count_words(const char *text) {
    char buf[256];          /* answers are short: the reward penalises anything over 40 words */
    strcpy(buf, text);
    int n = 0, in_word = 0;
    for (char *p = buf; *p; p++) {
        if (isspace((unsigned char)*p)) in_word = 0;
        else if (!in_word) { in_word = 1; n++; }
    }
    return n;
}
