# difficulty: Medium
# topic: two-pointers-sorting
def nearest_trio_total(parts: List[int], goal: int) -> int:
    parts = sorted(parts)
    n = len(parts)
    best = parts[0] + parts[1] + parts[2]
    for i in range(n - 2):
        lo = i + 1
        hi = n - 1
        while lo < hi:
            s = parts[i] + parts[lo] + parts[hi]
            if abs(s - goal) < abs(best - goal) or (abs(s - goal) == abs(best - goal) and s < best):
                best = s
            if s < goal:
                lo += 1
            elif s > goal:
                hi -= 1
            else:
                return s
    return best
