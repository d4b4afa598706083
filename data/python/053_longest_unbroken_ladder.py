# difficulty: Medium
# topic: prefix-sums-hashing
def longest_unbroken_ladder(rungs: List[int]) -> int:
    levels = set(r // 8 for r in rungs)
    best_len, best_start = 0, 0
    for v in levels:
        if v - 1 not in levels:
            end = v
            while end + 1 in levels:
                end += 1
            if end - v + 1 > best_len or (end - v + 1 == best_len and v < best_start):
                best_len, best_start = end - v + 1, v
    return best_len * best_start + best_len * (best_len - 1) // 2
