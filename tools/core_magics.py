"""Find the magic multipliers of search/core/attacks.py (fixed shifts: 64 minus the relevant mask's bit count).

Run ``python tools/core_magics.py`` to print the two tables pasted into ``search/core/attacks.py``; a seeded
xorshift makes the output the same on every run. Any magic that maps every occupancy of a square's mask to a
slot without a conflicting attack set works; attacks.py checks its tables on import.
"""

from __future__ import annotations

import numpy as np
from numba import njit

ROOK_DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1))
BISHOP_DIRS = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def mask_and_attacks(sq: int, dirs: tuple[tuple[int, int], ...]) -> tuple[int, list[int], list[int]]:
    """The relevant-occupancy mask of ``sq`` and, for every subset of it, the subset and its attack set."""
    f0, r0 = sq % 8, sq // 8
    mask = 0
    for df, dr in dirs:
        f, r = f0 + df, r0 + dr
        while 0 <= f + df < 8 and 0 <= r + dr < 8:
            mask |= 1 << (8 * r + f)
            f, r = f + df, r + dr
    occs, atts = [], []
    sub = 0
    while True:
        att = 0
        for df, dr in dirs:
            f, r = f0 + df, r0 + dr
            while 0 <= f < 8 and 0 <= r < 8:
                att |= 1 << (8 * r + f)
                if sub >> (8 * r + f) & 1:
                    break
                f, r = f + df, r + dr
        occs.append(sub)
        atts.append(att)
        sub = (sub - mask) & mask
        if sub == 0:
            break
    return mask, occs, atts


@njit(cache=False)
def find(occs, atts, bits, seed):  # type: ignore[no-untyped-def]
    size = 1 << bits
    used = np.zeros(size, np.uint64)
    epoch = np.zeros(size, np.int64)
    s = np.uint64(seed)
    shift = np.uint64(64 - bits)
    for trial in range(1, 100_000_000):
        m = np.uint64(0xFFFFFFFFFFFFFFFF)
        for _ in range(3):
            s ^= s << np.uint64(13)
            s ^= s >> np.uint64(7)
            s ^= s << np.uint64(17)
            m &= s
        ok = True
        for i in range(occs.shape[0]):
            idx = (occs[i] * m) >> shift
            if epoch[idx] != trial:
                epoch[idx] = trial
                used[idx] = atts[i]
            elif used[idx] != atts[i]:
                ok = False
                break
        if ok:
            return m, s
    return np.uint64(0), s


def main() -> None:
    seed = 0x9E3779B97F4A7C15
    for name, dirs in (("ROOK", ROOK_DIRS), ("BISHOP", BISHOP_DIRS)):
        out = []
        for sq in range(64):
            mask, occs, atts = mask_and_attacks(sq, dirs)
            bits = bin(mask).count("1")
            magic, next_seed = find(np.array(occs, np.uint64), np.array(atts, np.uint64), bits, np.uint64(seed))
            seed = int(next_seed)
            out.append(int(magic))
        print(f"_{name}_MAGICS = np.array([")
        for i in range(0, 64, 4):
            print("    " + ", ".join(f"0x{m:016X}" for m in out[i:i + 4]) + ",")
        print("], dtype=np.uint64)")


if __name__ == "__main__":
    main()
