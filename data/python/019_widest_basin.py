# difficulty: Medium
# topic: two-pointers-sorting
def widest_basin(walls: List[int]) -> int:
    lo, hi = 0, len(walls) - 1
    best = 0
    while lo < hi:
        a, b = abs(walls[lo]), abs(walls[hi])
        best = max(best, min(a, b) * (hi - lo))
        if a < b:
            lo += 1
        else:
            hi -= 1
    return best
