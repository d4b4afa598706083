# difficulty: Hard
# topic: prefix-sums-hashing
def shortest_full_palette(paint: List[int]) -> int:
    hues = [p % 4 for p in paint]
    needed = len(set(hues))
    counts = [0, 0, 0, 0]
    covered = 0
    left = 0
    best = (len(hues) + 1, 0, 0)
    for right, h in enumerate(hues):
        counts[h] += 1
        if counts[h] == 1:
            covered += 1
        while covered == needed:
            if right - left + 1 < best[0]:
                best = (right - left + 1, left, right + 1)
            counts[hues[left]] -= 1
            if counts[hues[left]] == 0:
                covered -= 1
            left += 1
    _, lo, hi = best
    return sum(paint[lo:hi])
