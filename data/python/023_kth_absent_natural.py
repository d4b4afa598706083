# difficulty: Easy
# topic: two-pointers-sorting
def kth_absent_natural(present: List[int], k: int) -> int:
    seen = sorted(set(abs(p) % 30 + 1 for p in present))
    want = abs(k) % 20 + 1
    lo, hi = 0, len(seen)
    while lo < hi:
        mid = (lo + hi) // 2
        if seen[mid] - mid - 1 < want:
            lo = mid + 1
        else:
            hi = mid
    return lo + want
