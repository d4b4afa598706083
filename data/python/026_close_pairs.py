# difficulty: Medium
# topic: two-pointers-sorting
def close_pairs(readings: List[int]) -> int:
    ordered = sorted(readings)
    gap = (ordered[-1] - ordered[0]) // 4
    count = 0
    left = 0
    for right in range(len(ordered)):
        while ordered[right] - ordered[left] > gap:
            left += 1
        count += (right - left) * (2 if ordered[right] < 0 else 1)
    return count
