/* The move generator's inner loop in C: the same algorithm as movegen.py's Generator._generate
 * (Appel & Jacobson over the DAWG), move for move and point for point; a test compares them.
 *
 * Why C: in pure Python the generator costs about 15 us a move, and a rack with two blanks on an
 * open board has tens of thousands of moves (over a second); the targets are 10 ms without and
 * 60 ms with two blanks. Everything else (the board analysis, the DAWG, choosing a move) stays
 * in Python; this file only walks. Built by the system C compiler on first use (movegen_c.py),
 * loaded through ctypes; without a compiler the pure Python generator runs instead.
 *
 * Moves are written as fixed records of REC int16: score, direction, line, start, length, then
 * one code per square (letter, +32 a blank, +64 a tile already there). The return value is the
 * number of moves found; only the first `capacity` are written, so the caller retries with a
 * bigger buffer when it is short. With stop_first, the walk stops at the first move.
 */
#include <stdint.h>
#include <string.h>

#define REC 32
#define MAXW 26
#define BLANK_CODE 32
#define BOARD_CODE 64

typedef struct {
    const int32_t *first, *final_, *mask, *letter, *child;
    const int32_t *tiles, *bval, *cross, *xs, *lm, *wm; /* the current line */
    int32_t *rack;
    int blanks, total, M, d, line, start, stop_first, stop;
    const int32_t *val, *bonus;
    int16_t *out;
    long capacity, count;
    int word[MAXW];
    int wlen;
} S;

static inline int popcount32(uint32_t x) { return __builtin_popcount(x); }

static void record(S *s, int score, int nt) {
    if (nt == 1 && s->d == 1) {
        for (int i = 0; i < s->wlen; i++) {
            if (s->word[i] < BOARD_CODE) {
                if (s->xs[s->start + i] >= 0) return;
                break;
            }
        }
    }
    if (s->count < s->capacity) {
        int16_t *r = s->out + s->count * REC;
        r[0] = (int16_t)score;
        r[1] = (int16_t)s->d;
        r[2] = (int16_t)s->line;
        r[3] = (int16_t)s->start;
        r[4] = (int16_t)s->wlen;
        for (int i = 0; i < s->wlen; i++) r[5 + i] = (int16_t)s->word[i];
    }
    s->count++;
    if (s->stop_first) s->stop = 1;
}

static void extend(S *s, int node, int pos, int msum, int wmul, int xtot, int nt) {
    if (s->stop) return;
    const int32_t *first = s->first, *final_ = s->final_, *mask = s->mask;
    int t = s->tiles[pos];
    int nxt = pos + 1;
    int M = s->M;
    if (t >= 0) {
        uint32_t m = (uint32_t)mask[node];
        if (!((m >> t) & 1u)) return;
        int kid = s->child[first[node] + popcount32(m & ((1u << t) - 1u))];
        msum += s->bval[pos];
        s->word[s->wlen++] = t + BOARD_CODE;
        if (nxt == M || s->tiles[nxt] < 0) {
            if (final_[kid] && nt) record(s, msum * wmul + xtot + s->bonus[nt], nt);
            if (nxt < M && nt < s->total && mask[kid]) extend(s, kid, nxt, msum, wmul, xtot, nt);
        } else if (mask[kid]) {
            extend(s, kid, nxt, msum, wmul, xtot, nt);
        }
        s->wlen--;
        return;
    }
    uint32_t allowed = (uint32_t)s->cross[pos];
    if (!allowed) return;
    int ends = (nxt == M || s->tiles[nxt] < 0);
    int goes_on = nxt < M && (!ends || nt + 1 < s->total);
    int lmp = s->lm[pos], wmp = s->wm[pos], x = s->xs[pos];
    int wmul2 = wmul * wmp, nt2 = nt + 1, b = s->bonus[nt2];
    for (int e = first[node]; e < first[node + 1]; e++) {
        int lt = s->letter[e];
        if (!((allowed >> lt) & 1u)) continue;
        int kid = s->child[e];
        if (s->rack[lt]) {
            int v = s->val[lt] * lmp;
            int ms = msum + v;
            int xt = x >= 0 ? xtot + (x + v) * wmp : xtot;
            s->word[s->wlen++] = lt;
            if (ends && final_[kid]) record(s, ms * wmul2 + xt + b, nt2);
            if (goes_on && mask[kid]) {
                s->rack[lt]--;
                extend(s, kid, nxt, ms, wmul2, xt, nt2);
                s->rack[lt]++;
            }
            s->wlen--;
        }
        if (s->blanks) {
            int xt = x >= 0 ? xtot + x * wmp : xtot;
            s->word[s->wlen++] = lt + BLANK_CODE;
            if (ends && final_[kid]) record(s, msum * wmul2 + xt + b, nt2);
            if (goes_on && mask[kid]) {
                s->blanks--;
                extend(s, kid, nxt, msum, wmul2, xt, nt2);
                s->blanks++;
            }
            s->wlen--;
        }
        if (s->stop) return;
    }
}

/* Left parts on the free squares left of anchor a: k letters so far in word[0..k-1]. */
static void left_part(S *s, int node, int a, int k, int limit, uint32_t allowed) {
    if (s->stop) return;
    if ((uint32_t)s->mask[node] & allowed) {
        int msum = 0, wmul = 1, st = a - k;
        for (int i = 0; i < k; i++) {
            int code = s->word[i];
            if (code < BLANK_CODE) msum += s->val[code] * s->lm[st + i];
            wmul *= s->wm[st + i];
        }
        s->start = st;
        extend(s, node, a, msum, wmul, 0, k);
    }
    if (k >= limit) return;
    const int32_t *first = s->first, *mask = s->mask;
    for (int e = first[node]; e < first[node + 1]; e++) {
        int lt = s->letter[e];
        int kid = s->child[e];
        if (!mask[kid]) continue;
        if (s->rack[lt]) {
            s->rack[lt]--;
            s->word[k] = lt;
            s->wlen = k + 1;
            left_part(s, kid, a, k + 1, limit, allowed);
            s->rack[lt]++;
        }
        if (s->blanks) {
            s->blanks--;
            s->word[k] = lt + BLANK_CODE;
            s->wlen = k + 1;
            left_part(s, kid, a, k + 1, limit, allowed);
            s->blanks++;
        }
        if (s->stop) return;
    }
    s->wlen = k;
}

long generate(const int32_t *first, const int32_t *final_, const int32_t *mask,
              const int32_t *letter, const int32_t *child, int rows, int cols,
              const int32_t *tiles, const int32_t *bval, const int32_t *cross,
              const int32_t *xs, const int32_t *lm, const int32_t *wm,
              const int32_t *anchors, int n_anchors, int32_t *rack, int blanks,
              const int32_t *val, const int32_t *bonus, int total, int16_t *out,
              long capacity, int stop_first) {
    S s;
    memset(&s, 0, sizeof s);
    s.first = first; s.final_ = final_; s.mask = mask; s.letter = letter; s.child = child;
    s.rack = rack; s.blanks = blanks; s.total = total; s.val = val; s.bonus = bonus;
    s.out = out; s.capacity = capacity; s.stop_first = stop_first;
    if (total <= 0) return 0;
    for (int i = 0; i < n_anchors && !s.stop; i++) {
        int d = anchors[4 * i], line = anchors[4 * i + 1], a = anchors[4 * i + 2], free = anchors[4 * i + 3];
        int M = d == 0 ? cols : rows;
        long base = (long)d * rows * cols + (long)line * M;
        s.d = d; s.line = line; s.M = M;
        s.tiles = tiles + base; s.bval = bval + base; s.cross = cross + base;
        s.xs = xs + base; s.lm = lm + base; s.wm = wm + base;
        uint32_t allowed = (uint32_t)s.cross[a];
        if (!allowed) continue;
        s.wlen = 0;
        if (a > 0 && s.tiles[a - 1] >= 0) {
            int st = a - 1;
            while (st > 0 && s.tiles[st - 1] >= 0) st--;
            int node = 0, msum = 0;
            for (int p = st; p < a; p++) {
                int t = s.tiles[p];
                uint32_t m = (uint32_t)mask[node];
                if (!((m >> t) & 1u)) { node = -1; break; }
                node = child[first[node] + popcount32(m & ((1u << t) - 1u))];
                msum += s.bval[p];
                s.word[s.wlen++] = t + BOARD_CODE;
            }
            if (node >= 0 && ((uint32_t)mask[node] & allowed)) {
                s.start = st;
                extend(&s, node, a, msum, 1, 0, 0);
            }
            continue;
        }
        int limit = free < total - 1 ? free : total - 1;
        left_part(&s, 0, a, 0, limit, allowed);
    }
    return s.count;
}
