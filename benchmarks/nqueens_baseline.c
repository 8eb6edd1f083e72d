/* The baseline the N-Queens issue measures the CPU backend against: a plain recursive bitmap
 * counter over the whole tree (no symmetry), one node counted per queen placed.
 * Built and run by `cargo xtask bench nqueens-baseline` with gcc -O3 -march=native. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t nodes;

static uint64_t solve(uint32_t mask, uint32_t left, uint32_t down, uint32_t right) {
    if (down == mask) return 1;
    uint64_t count = 0;
    uint32_t free = mask & ~(left | down | right);
    while (free) {
        uint32_t bit = free & -free;
        free ^= bit;
        nodes++;
        count += solve(mask, (left | bit) << 1, down | bit, (right | bit) >> 1);
    }
    return count;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 16;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t total = solve((1u << n) - 1, 0, 0, 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("{\"n\":%d,\"total\":%llu,\"nodes\":%llu,\"seconds\":%.4f,\"nodes_per_second\":%.0f}\n", n,
           (unsigned long long)total, (unsigned long long)nodes, s, nodes / s);
    return 0;
}
