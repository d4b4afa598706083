# difficulty: Medium
# topic: two-pointers-sorting
def harvest_line(stalks: List[int], need: int) -> int:
    heights = [abs(s) for s in stalks]
    want = abs(need)
    lo, hi = 0, max(heights)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        cut = 0
        for h in heights:
            if h > mid:
                cut += h - mid
        if cut >= want:
            lo = mid
        else:
            hi = mid - 1
    return lo
