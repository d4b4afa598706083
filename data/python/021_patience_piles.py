# difficulty: Medium
# topic: two-pointers-sorting
def patience_piles(cards: List[int]) -> int:
    tops = []
    for c in cards:
        lo, hi = 0, len(tops)
        while lo < hi:
            mid = (lo + hi) // 2
            if tops[mid] < c:
                lo = mid + 1
            else:
                hi = mid
        if lo == len(tops):
            tops.append(c)
        else:
            tops[lo] = c
    return sum(tops)
