# difficulty: Medium
# topic: two-pointers-sorting
def widest_basin(walls: List[int]) -> int:
    lo, hi = 0, len(walls) - 1
    best = 0
    while lo < hi:
        a, b = abs(walls[lo]) % 60, abs(walls[hi]) % 60
        best = max(best, min(a, b) * (hi - lo))
        if a < b:
            lo += 1
        elif a > b:
            hi -= 1
        else:
            lo, hi = lo + 1, hi - 1
    return best
