# difficulty: Hard
# topic: two-pointers-sorting
def balanced_convoy(crates: List[int], trucks: int) -> int:
    sizes = [abs(c) for c in crates]
    parts = abs(trucks) % 4 + 2
    lo, hi = max(sizes), sum(sizes)
    while lo < hi:
        mid = (lo + hi) // 2
        used = 1
        load = 0
        for s in sizes:
            if load + s > mid:
                used += 1
                load = 0
            load += s
        if used <= parts:
            hi = mid
        else:
            lo = mid + 1
    return lo
