# difficulty: Medium
# topic: two-pointers-sorting
def pairs_under_ceiling(weights: List[int], ceiling: int) -> int:
    order = sorted(weights)
    lo, hi = 0, len(order) - 1
    count = 0
    while lo < hi:
        if order[lo] + order[hi] < ceiling:
            count += hi - lo
            lo += 1
        else:
            hi -= 1
    return count
